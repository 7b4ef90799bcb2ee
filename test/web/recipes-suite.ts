// End-to-end: recipes on the web page, in a real Chromium against the real `fileconv serve`. A
// recipe saved from the page is kept by the server's store, so the round trip runs on every setup;
// a refused save never reaches the store (storeBlind). Outputs are checked with poppler and qpdf.
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { textPdf } from '../converters/_image-samples.js';
import { pageRotations } from '../helpers/merge-inputs.js';
import { SETUP_TITLES, type SetupName, setupMissing } from '../support/setups.js';
import { downloadHref, PHONE } from './browser.js';
import { webSuite } from './suite-kit.js';

/**
 * Keeps the body of each convert request in the page: Chromium does not hand a Blob body to
 * Playwright's request events, and the meta part is what the page decided to send.
 */
function keepConvertBodies(): void {
  const sent: string[] = [];
  const original = window.fetch.bind(window);
  Object.assign(window, { convertBodies: sent });
  window.fetch = async (input, init) => {
    if (String(input).endsWith('/api/public/convert') && init?.body instanceof Blob)
      sent.push(await init.body.text());
    return original(input, init);
  };
}

/** The JSON of the last convert request's `meta` part. */
async function lastMeta(page: Page): Promise<unknown> {
  const body = await page.evaluate(() =>
    (window as unknown as { convertBodies: string[] }).convertBodies.at(-1),
  );
  const part = /name="meta"\r\nContent-Type: application\/json\r\n\r\n(.*?)\r\n--/s.exec(body ?? '');
  return JSON.parse(part?.[1] ?? 'null');
}

export function webRecipesSuite(setupName: SetupName): void {
  const missing = setupMissing(setupName);
  describe.skipIf(missing)(
    `web page recipes on ${missing ?? SETUP_TITLES[setupName]}`,
    { timeout: 240_000 },
    () => {
      const web = webSuite(setupName, 'fileconv-web-recipes-');
      const { shot, harness, itStoreBlind } = web;
      let pdf: Buffer;

      beforeAll(async () => {
        pdf = await readFile(await textPdf(web.scratch, ['Alpha page one', 'Bravo page two'], 'two.pdf'));
      });

      /** Chooses the two-page PDF and its target pdf (an operation: behind "More formats"). */
      async function choosePdf(page: Page): Promise<void> {
        await page.setInputFiles('#file-input', {
          name: 'two.pdf',
          mimeType: 'application/pdf',
          buffer: pdf,
        });
        await expect.poll(() => page.textContent('[data-field="detected"]')).toContain('pdf');
        await page.locator('#recipe-select').waitFor();
        if (!(await page.isVisible('input[value="pdf-pdf"]'))) await page.click('#more-targets summary');
        await page.check('input[name="conversion"][value="pdf-pdf"]');
        await page.click('[data-options="more"] summary');
      }

      it('saves a recipe without its password, converts a PDF with it, and deletes it', async () => {
        const page = await harness.open();
        await choosePdf(page);
        await page.selectOption('#opt-rotate', '90');
        await page.fill('#opt-user_password', 'sesame');
        await page.click('#recipes-panel summary');
        expect(await page.textContent('#recipe-secret-hint')).toMatch(/Passwords .* never saved/);
        await page.getByLabel('Recipe name').fill('turn-right');
        await page.getByLabel('Description (optional)').fill('Every page clockwise');
        const saved = page.waitForResponse(
          (r) => r.url().endsWith('/api/public/recipes') && r.request().method() === 'POST',
        );
        await page.click('#save-recipe');
        const response = await saved;
        expect(response.status()).toBe(201);
        // The password typed above is not part of the recipe.
        expect(response.request().postDataJSON()).toEqual({
          name: 'turn-right',
          description: 'Every page clockwise',
          to: 'pdf',
          options: { rotate: 90 },
        });
        const item = page.locator('#recipes-panel li[data-recipe="turn-right"]');
        await item.waitFor();
        expect(await item.textContent()).toMatch(/turn-right.*→ pdf.*Every page clockwise.*rotate 90/);
        expect(await page.textContent('#recipes-panel .recipe-status')).toContain(
          'Saved the recipe turn-right',
        );
        await page.screenshot({ path: shot('web-recipe-saved'), fullPage: true });

        // After a reload the list is read back with the device's owner token.
        await page.addInitScript(keepConvertBodies);
        await page.reload();
        await page.waitForSelector('body[data-ready="true"]', { timeout: 90_000 });
        await page.setInputFiles('#file-input', {
          name: 'two.pdf',
          mimeType: 'application/pdf',
          buffer: pdf,
        });
        await expect.poll(() => page.textContent('[data-field="detected"]')).toContain('pdf');
        await page.getByLabel('Recipe', { exact: true }).selectOption('turn-right');
        // The recipe sets the target and shows its options where they can be seen.
        expect(await page.isChecked('input[value="pdf-pdf"]')).toBe(true);
        expect(await page.inputValue('#opt-rotate')).toBe('90');
        expect(await page.isVisible('#opt-rotate')).toBe(true);
        expect(await page.textContent('#recipe-about')).toContain('rotate 90');
        await page.fill('#opt-user_password', 'sesame');
        await page.screenshot({ path: shot('web-recipe-chosen'), fullPage: true });

        const sent = page.waitForRequest((r) => r.url().endsWith('/api/public/convert'));
        await page.click('#convert-button');
        await sent;
        // The recipe by name, and beside it only what was added: the password.
        expect(await lastMeta(page)).toEqual({
          conversion: 'pdf-pdf',
          recipe: 'turn-right',
          options: { user_password: 'sesame' },
        });
        const link = page.locator('[data-artifact="pdf"] a').first();
        await link.waitFor({ timeout: 120_000 });
        const download = await downloadHref((await link.getAttribute('href'))!);
        const out = join(web.scratch, 'turned.pdf');
        await writeFile(out, download.body);
        expect(spawnSync('qpdf', ['--requires-password', out]).status).toBe(0);
        expect(spawnSync('qpdf', ['--password=sesame', '--check', out]).status).toBe(0);
        expect(pageRotations(out, 'sesame')[0]).toBe(90);

        // No recipe, or another target, goes back to the plain fields; so does deleting the chosen one.
        await page.getByLabel('Recipe', { exact: true }).selectOption('');
        expect(await page.inputValue('#opt-rotate')).toBe('');
        await page.getByLabel('Recipe', { exact: true }).selectOption('turn-right');
        await page.check('input[name="conversion"][value="pdf-png"]');
        expect(await page.inputValue('#recipe-select')).toBe('');
        expect(await page.textContent('#recipe-about')).toBe('');
        // With the keyboard: the arrow picks the recipe, Enter on its Delete button removes it.
        await page.focus('#recipe-select');
        await page.keyboard.press('ArrowDown');
        expect(await page.inputValue('#recipe-select')).toBe('turn-right');
        expect(await page.isChecked('input[value="pdf-pdf"]')).toBe(true);
        await page.click('#recipes-panel summary');
        const deleted = page.waitForResponse((r) => r.request().method() === 'DELETE');
        await page.getByRole('button', { name: 'Delete recipe turn-right' }).focus();
        await page.keyboard.press('Enter');
        expect((await deleted).status()).toBe(204);
        await item.waitFor({ state: 'detached' });
        expect(await page.inputValue('#recipe-select')).toBe('');
        expect(await page.locator('#recipe-select option[value="turn-right"]').count()).toBe(0);
        expect(await page.inputValue('#opt-rotate')).toBe('');
        // The pressed button is gone: the focus lands on the form, not on the page's top.
        await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('recipe-name');
        const owner = await page.evaluate(() => localStorage.getItem('fileconv.ownerToken'));
        const listed = await fetch(`${web.server.url}/api/public/recipes`, {
          headers: { 'X-Owner-Token': owner! },
        });
        expect(await listed.json()).toEqual({ recipes: [] });
        await harness.finish(page);
      });

      itStoreBlind(
        "shows the server's message, naming the option, when a recipe is refused (phone width)",
        async () => {
          const page = await harness.open(PHONE);
          await choosePdf(page);
          await page.fill('#opt-pages', 'every other page');
          await page.click('#recipes-panel summary');
          // A name the server would refuse is caught on the page first.
          await page.getByLabel('Recipe name').fill('Odd Pages');
          await page.click('#save-recipe');
          expect(await page.getAttribute('#recipe-name', 'aria-invalid')).toBe('true');
          expect(await page.textContent('#recipes-panel .recipe-status')).toContain('lower-case letters');

          await page.getByLabel('Recipe name').fill('odd-pages');
          const refused = page.waitForResponse(
            (r) => r.url().endsWith('/api/public/recipes') && r.request().method() === 'POST',
          );
          await page.click('#save-recipe');
          const response = await refused;
          expect(response.status()).toBe(400);
          const { error } = (await response.json()) as {
            error: { code: string; message: string; option?: string };
          };
          expect(error.code).toBe('INVALID_REQUEST');
          expect(error.option).toBe('pages');
          const notice = page.locator('#recipes-panel .notice.error[data-option="pages"]');
          await notice.waitFor();
          expect(await notice.locator('[data-field="server-message"]').textContent()).toBe(error.message);
          expect(await notice.textContent()).toContain('Pages');
          expect(await page.getAttribute('#opt-pages', 'aria-invalid')).toBe('true');
          expect(await page.locator('#recipes-panel li[data-recipe]').count()).toBe(0);
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
            PHONE.width,
          );
          await notice.scrollIntoViewIfNeeded();
          await page.screenshot({ path: shot('web-recipe-refused'), fullPage: false });
          await harness.finish(page);
        },
      );
    },
  );
}
