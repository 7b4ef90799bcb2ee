// End-to-end: the web page in a real Chromium against the real `fileconv serve`, run by one small
// test file per setup: the page must behave the same on SQLite + disk and on PostgreSQL + S3 (what
// never reaches the stores runs on the first only: storeBlind).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileChooser, Request } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../../src/detect/index.js';
import { cacheDir } from '../corpus/fetch.js';
import { reportPdf } from '../helpers/layout-pdf.js';
import { SETUP_TITLES, type SetupName, setupMissing } from '../support/setups.js';
import { DESKTOP, downloadHref, PHONE, SCREENSHOT_DIR, scanPdf } from './browser.js';
import { type RunningServer, startServer } from './server.js';
import { webSuite } from './suite-kit.js';

/** A PDF signed by others (qpdf's tests, in the real-world corpus: `npm run corpus`). */
const SIGNED_PDF = join(cacheDir(), 'files/upstream/qpdf/qpdf-11.3.0/qpdf/qtest/qpdf/digitally-signed.pdf');

export function webPageSuite(setupName: SetupName): void {
  const missing = setupMissing(setupName);
  describe.skipIf(missing)(`web page on ${missing ?? SETUP_TITLES[setupName]}`, () => {
    const web = webSuite(setupName, 'fileconv-web-');
    const { shot, harness, itStoreBlind } = web;
    let png: Buffer;
    const openPage = harness.open;
    const finish = harness.finish;

    async function targetFor(source: string): Promise<string> {
      const response = await fetch(`${web.server.url}/api/public/conversions`);
      const { conversions } = (await response.json()) as { conversions: Array<{ from: string; to: string }> };
      const targets = conversions.filter((c) => c.from === source).map((c) => c.to);
      return targets.includes('jpg') ? 'jpg' : targets[0]!;
    }

    beforeAll(async () => {
      // A small picture made here, at test time, by libvips.
      png = await sharp({
        create: { width: 96, height: 64, channels: 3, background: { r: 30, g: 120, b: 200 } },
      })
        .png()
        .toBuffer();
      console.log(`web screenshots: ${SCREENSHOT_DIR}`);
    });

    describe('web page on the real server', () => {
      it('converts a file chosen with the picker and serves a download that really is the target format', async () => {
        const page = await openPage();
        const target = await targetFor('png');
        await page.setInputFiles('#file-input', { name: 'picture.png', mimeType: 'image/png', buffer: png });
        await expect.poll(() => page.textContent('[data-field="detected"]')).toContain('png');
        expect(await page.locator('[data-warning="mismatch"]').count()).toBe(0);

        await page.check(`input[name="conversion"][value="png-${target}"]`);
        await page.click('#convert-button');
        const link = page.locator('[data-artifact] a').first();
        await link.waitFor({ timeout: 90_000 });
        expect(await page.getAttribute('#result-panel', 'data-status')).toBe('succeeded');
        expect(await page.locator('.timeline li').count()).toBeGreaterThan(0);
        await expect.poll(() => page.locator('#recent-panel li').count()).toBeGreaterThan(0);
        await page.screenshot({ path: shot('web-desktop-converted'), fullPage: true });

        const href = (await link.getAttribute('href'))!;
        const download = await downloadHref(href);
        expect(download.status).toBe(200);
        const out = join(web.scratch, `download.${target}`);
        await writeFile(out, download.body);
        expect((await detect(out)).detected).toBe(target);

        // The recent list lives on the device: after a reload it is read back with the stored owner token.
        const id = await page.getAttribute('#result-panel', 'data-request-id');
        await page.reload();
        await page.waitForSelector('body[data-ready="true"]', { timeout: 90_000 });
        await page.locator(`#recent-panel li[data-request-id="${id}"]`).waitFor();
        expect(await page.textContent(`#recent-panel li[data-request-id="${id}"]`)).toContain(
          `png → ${target}`,
        );
        await finish(page);
      });

      itStoreBlind('shows next to the download what a PDF to Word conversion kept', async () => {
        const pdf = await readFile(await reportPdf(web.scratch));
        const page = await openPage();
        await page.setInputFiles('#file-input', {
          name: 'report.pdf',
          mimeType: 'application/pdf',
          buffer: pdf,
        });
        await expect.poll(() => page.textContent('[data-field="detected"]')).toContain('pdf');
        // DOCX may be among the usual targets or behind "More formats".
        if (!(await page.isVisible('input[value="pdf-docx"]'))) await page.click('#more-targets summary');
        await page.check('input[name="conversion"][value="pdf-docx"]');
        await page.click('#convert-button');
        const kept = page.locator('[data-artifact="docx"] [data-checks]');
        await kept.waitFor({ timeout: 90_000 });
        expect(await kept.textContent()).toMatch(/^(2 pages, )?1 picture, (9[5-9]|100)% of the words$/);
        await page.screenshot({ path: shot('web-desktop-pdf-docx-kept'), fullPage: true });
        await finish(page);
      });

      itStoreBlind(
        'offers the usual targets first and the rest behind "More formats", which still convert',
        async () => {
          const page = await openPage();
          await page.setInputFiles('#file-input', {
            name: 'picture.png',
            mimeType: 'image/png',
            buffer: png,
          });
          await expect.poll(() => page.textContent('[data-field="detected"]')).toContain('png');
          const usual = await page
            .locator('fieldset.usual input[name="conversion"]')
            .evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).dataset.to));
          // the common ones in the page's own order, image targets before OCR, and the first one chosen
          expect(usual.slice(0, 4)).toEqual(['pdf', 'jpg', 'webp', 'gif']);
          expect(usual).toContain('txt');
          expect(usual).not.toContain('bmp');
          expect(await page.isChecked('input[value="png-pdf"]')).toBe(true);
          // the rest is there, folded away
          const more = page.locator('#more-targets');
          expect(await more.getAttribute('open')).toBeNull();
          expect(await page.textContent('#more-targets summary')).toMatch(/More formats \(\d+\)/);
          expect(await page.isVisible('input[value="png-bmp"]')).toBe(false);
          await page.screenshot({ path: shot('web-targets-folded'), fullPage: true });

          await page.click('#more-targets summary');
          await page.check('input[name="conversion"][value="png-bmp"]');
          await page.screenshot({ path: shot('web-targets-more'), fullPage: true });
          await page.click('#convert-button');
          const link = page.locator('[data-artifact] a').first();
          await link.waitFor({ timeout: 90_000 });
          const download = await downloadHref((await link.getAttribute('href'))!);
          const out = join(web.scratch, 'from-more.bmp');
          await writeFile(out, download.body);
          expect((await detect(out)).detected).toBe('bmp');
          await finish(page);
        },
      );

      itStoreBlind(
        'checks a file dropped on the drop zone (a synthetic drop with a DataTransfer)',
        async () => {
          const page = await openPage();
          await page.evaluate(
            ([bytes, name]) => {
              const transfer = new DataTransfer();
              transfer.items.add(new File([new Uint8Array(bytes)], name, { type: 'image/png' }));
              const zone = document.getElementById('dropzone')!;
              for (const type of ['dragenter', 'dragover', 'drop']) {
                zone.dispatchEvent(
                  new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }),
                );
              }
            },
            [[...png], 'dropped.png'] as const,
          );
          await expect.poll(() => page.textContent('[data-field="detected"]')).toContain('png');
          expect(await page.textContent('#detect-panel')).toContain('dropped.png');
          expect(await page.locator('#target-panel input[name="conversion"]').count()).toBeGreaterThan(0);
          await finish(page);
        },
      );

      itStoreBlind('lets the keyboard reach the file picker', async () => {
        // Listening before the page loads: file-chooser interception is switched on asynchronously,
        // and a listener added just before the key press can miss the chooser it opens.
        let chooser!: Promise<FileChooser>;
        const page = await openPage(DESKTOP, 'light', web.server.url, (p) => {
          chooser = p.waitForEvent('filechooser', { timeout: 90_000 });
          chooser.catch(() => undefined); // awaited below; this only keeps an early failure quiet
        });
        let focused = '';
        for (let i = 0; i < 10 && focused !== 'choose-file'; i++) {
          await page.keyboard.press('Tab');
          focused = await page.evaluate(() => document.activeElement?.id ?? '');
        }
        expect(focused).toBe('choose-file');
        await page.keyboard.press('Enter');
        await (await chooser).setFiles({ name: 'keyboard.png', mimeType: 'image/png', buffer: png });
        await expect.poll(() => page.textContent('#detect-panel')).toContain('keyboard.png');
        await finish(page);
      });

      itStoreBlind('warns when a PNG is named photo.pdf, at phone width', async () => {
        const page = await openPage(PHONE);
        await page.setInputFiles('#file-input', {
          name: 'photo.pdf',
          mimeType: 'application/pdf',
          buffer: png,
        });
        const warning = page.locator('[data-warning="mismatch"]');
        await warning.waitFor();
        expect(await page.textContent('[data-field="declared"]')).toContain('pdf');
        expect(await page.textContent('[data-field="detected"]')).toContain('png');
        expect(await warning.textContent()).toContain('does not match');
        // The offered targets follow the detected type, not the name.
        expect(await page.locator('#target-panel input[value^="png-"]').count()).toBeGreaterThan(0);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width).toBeLessThanOrEqual(PHONE.width);
        await page.screenshot({ path: shot('web-phone-mismatch'), fullPage: true });
        await finish(page);
      });

      itStoreBlind(
        'explains a conversion the engines could not read (random bytes converted as docx)',
        async () => {
          const page = await openPage();
          await page.setInputFiles('#file-input', {
            name: 'notes.docx',
            mimeType: 'application/octet-stream',
            buffer: randomBytes(4096),
          });
          await page.locator('#source-format').waitFor();
          // The visitor overrides the detection and insists the file is a Word document.
          await page.selectOption('#source-format', 'docx');
          await page.check('input[name="conversion"][value="docx-pdf"]');
          await page.click('#convert-button');
          const notice = page.locator('#result-panel .notice.error');
          await notice.waitFor({ timeout: 90_000 });
          expect(await page.getAttribute('#result-panel', 'data-status')).toBe('failed');
          expect(['MALFORMED_DOCUMENT', 'CONVERT_FAILED']).toContain(await notice.getAttribute('data-code'));
          expect(await notice.textContent()).toMatch(/try again/i);
          await notice.scrollIntoViewIfNeeded();
          await page.screenshot({ path: shot('web-desktop-failed'), fullPage: false });
          await finish(page);
        },
      );

      itStoreBlind('offers OCR when a scanned PDF has no text layer, and reads it when asked', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'fileconv-web-scan-'));
        try {
          const page = await openPage();
          await page.setInputFiles('#file-input', await scanPdf(dir));
          await page.locator('#source-format').waitFor();
          await page.check('input[name="conversion"][value="pdf-txt"]');
          await page.click('#convert-button');
          const notice = page.locator('#result-panel .notice.error');
          await notice.waitFor({ timeout: 90_000 });
          expect(await notice.getAttribute('data-code')).toBe('NEEDS_OCR');
          await notice.getByRole('button', { name: 'Read the text with OCR' }).click();
          const link = page.locator('[data-artifact] a').first();
          await link.waitFor({ timeout: 90_000 });
          expect(await page.getAttribute('#result-panel', 'data-status')).toBe('succeeded');
          const download = await downloadHref((await link.getAttribute('href'))!);
          expect(download.body.toString('utf8')).toMatch(/INVOICE\s*42/);
          await finish(page);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });

      itStoreBlind.skipIf(!existsSync(SIGNED_PDF))(
        "reports a PDF's signatures as a target of its own, with the signer and the check",
        async () => {
          const page = await openPage();
          await page.setInputFiles('#file-input', {
            name: 'contract.pdf',
            mimeType: 'application/pdf',
            buffer: await readFile(SIGNED_PDF),
          });
          await page.locator('#source-format').waitFor();
          const report = page.locator('input[name="conversion"][value="pdf-json"]');
          if (!(await report.isVisible())) await page.click('#more-targets summary');
          expect(await page.getAttribute('label.target:has(input[value="pdf-json"])', 'title')).toMatch(
            /signatures/,
          );
          await report.check();
          await page.click('#convert-button');
          const link = page.locator('[data-artifact] a').first();
          await link.waitFor({ timeout: 90_000 });
          const download = await downloadHref((await link.getAttribute('href'))!);
          const { signatures } = JSON.parse(download.body.toString('utf8')) as {
            signatures: { signer: string; valid: boolean; covers_whole_file: boolean }[];
          };
          expect(signatures).toEqual([
            expect.objectContaining({ signer: 'John Doe', valid: true, covers_whole_file: true }),
          ]);
          await finish(page);
        },
      );

      it('keeps an API key in the browser only and sends it as a Bearer token (dark theme)', async () => {
        const page = await openPage(DESKTOP, 'dark');
        const key = `fck_${'k'.repeat(43)}`;
        await page.fill('#api-key', key);
        await page.click('#key-form button[type="submit"]');
        expect(await page.textContent('#key-status')).toContain('kkkk');
        expect(await page.evaluate(() => localStorage.getItem('fileconv.apiKey'))).toBe(key);

        const sent = page.waitForRequest((r: Request) => r.url().endsWith('/api/public/detect'));
        await page.setInputFiles('#file-input', { name: 'keyed.png', mimeType: 'image/png', buffer: png });
        const request = await sent;
        expect(request.headers()['authorization']).toBe(`Bearer ${key}`);
        const response = await request.response();
        if (response?.status() === 401) {
          // With API keys in place an unknown key is refused, and the page says so.
          await page.locator('#detect-panel [data-code="INVALID_API_KEY"]').waitFor();
        } else {
          await expect.poll(() => page.textContent('[data-field="detected"]')).toContain('png');
        }
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: shot('web-desktop-dark'), fullPage: false });

        await page.click('#clear-key');
        expect(await page.evaluate(() => localStorage.getItem('fileconv.apiKey'))).toBeNull();
        await finish(page);
      });

      itStoreBlind('explains a source URL on a private address', async () => {
        const page = await openPage();
        await page.fill('#source-url', 'http://127.0.0.1/secret.png');
        await page.selectOption('#url-target', { index: 1 });
        await page.click('#url-convert');
        const notice = page.locator('#result-panel [data-code="SOURCE_URL_BLOCKED"]');
        await notice.waitFor();
        expect(await notice.textContent()).toContain('public http(s) address');
        await finish(page);
      });
    });

    describe('web page on a server with a tiny daily quota', () => {
      let tight: RunningServer;
      beforeAll(async () => {
        // One file check a day for anonymous callers: the second check is refused with 429.
        tight = await startServer(join(web.scratch, 'data-quota'), {
          quotaAnon: 'file_checks=1',
          ...(await web.setup.stores()),
        });
      });
      afterAll(async () => {
        await tight?.stop();
      });

      it('shows the quota reset time in local time', async () => {
        const page = await openPage(DESKTOP, 'light', tight.url);
        await page.setInputFiles('#file-input', { name: 'first.png', mimeType: 'image/png', buffer: png });
        await expect.poll(() => page.textContent('#detect-panel')).toContain('first.png');
        await page.locator('[data-field="detected"]').waitFor();

        const refused = page.waitForResponse((r) => r.url().endsWith('/api/public/detect'));
        await page.setInputFiles('#file-input', { name: 'second.png', mimeType: 'image/png', buffer: png });
        const response = await refused;
        expect(response.status()).toBe(429);
        const { error } = (await response.json()) as { error: { code: string; reset_at: string } };
        expect(error.code).toBe('QUOTA_EXCEEDED');

        const notice = page.locator('#detect-panel [data-code="QUOTA_EXCEEDED"]');
        await notice.waitFor();
        const local = await page.evaluate(
          (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
          error.reset_at,
        );
        expect(await notice.textContent()).toContain(`resets at ${local}`);
        // Going by its name, the file can still be converted.
        expect(await page.locator('#target-panel input[value^="png-"]').count()).toBeGreaterThan(0);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: shot('web-desktop-quota'), fullPage: false });
        await finish(page);
      });
    });
  });
}
