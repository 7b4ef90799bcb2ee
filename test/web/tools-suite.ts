// End-to-end: the page's work on several files and its PDF tools, in a real Chromium against the
// real `fileconv serve`, on SQLite + disk, and what reaches the stores again on PostgreSQL + S3
// (storeBlind). Outputs are checked with poppler and qpdf, the page's own ZIP with yauzl.
import { spawnSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { runConversion } from '../../src/run/runner.js';
import { textPdf } from '../converters/_image-samples.js';
import { pdfPages } from '../converters/_web-pages.js';
import { pdfPageCount, pdfText, zipEntries } from '../helpers/office.js';
import { makePkcs12 } from '../helpers/pkcs12.js';
import { SETUP_TITLES, type SetupName, setupMissing } from '../support/setups.js';
import { downloadHref, PHONE, scanPdf } from './browser.js';
import { webSuite } from './suite-kit.js';

/** qpdf's verdict: 0 sound, 2 errors, 3 warnings. */
function qpdfCheck(path: string, password?: string): number | null {
  return spawnSync('qpdf', [...(password ? [`--password=${password}`] : []), '--check', path]).status;
}

/** qpdf --is-encrypted / --requires-password: exit 0 for yes, 2 for no. */
function qpdfSays(flag: '--is-encrypted' | '--requires-password', path: string): boolean {
  return spawnSync('qpdf', [flag, path]).status === 0;
}

export async function webToolsSuite(setupName: SetupName): Promise<void> {
  const missing = setupMissing(setupName);

  describe.skipIf(missing)(
    `web page tools on ${missing ?? SETUP_TITLES[setupName]}`,
    { timeout: 300_000 },
    () => {
      const web = webSuite(setupName, 'fileconv-web-tools-');
      const { shot, harness, itStoreBlind } = web;
      let threePages: string;

      beforeAll(async () => {
        threePages = await textPdf(
          web.scratch,
          ['Alpha page one', 'Bravo page two', 'Charlie page three'],
          'three.pdf',
        );
      });

      /** Saves what a link of the result panel downloads. */
      async function fetchLink(page: Page, selector: string, name: string): Promise<string> {
        const href = (await page.locator(selector).first().getAttribute('href'))!;
        const response = await downloadHref(href);
        expect(response.status).toBe(200);
        const out = join(web.scratch, name);
        await writeFile(out, response.body);
        return out;
      }

      async function choosePdf(page: Page, path: string, name = 'three.pdf'): Promise<void> {
        await page.setInputFiles('#file-input', {
          name,
          mimeType: 'application/pdf',
          buffer: await readFile(path),
        });
        await expect.poll(() => page.textContent('[data-field="detected"]')).toContain('pdf');
        await page.locator('#pdf-tools-section').waitFor();
      }

      async function runTool(page: Page, tool: string, fill: (page: Page) => Promise<void>): Promise<void> {
        // Each run replaces the result panel; wait for this one's request, not the last one's.
        const before = await page.getAttribute('#result-panel', 'data-request-id');
        await page.click(`#tool-${tool} summary`);
        await fill(page);
        await page.click(`#tool-${tool} button[type="submit"]`);
        await expect
          .poll(() => page.getAttribute('#result-panel', 'data-request-id'), { timeout: 30_000 })
          .not.toBe(before);
        await expect
          .poll(() => page.getAttribute('#result-panel', 'data-status'), { timeout: 120_000 })
          .toMatch(/succeeded|failed/);
        // The panel is settled: an error notice is there now or not at all. Reading it only if present
        // (textContent() would wait out its 30 s timeout for one that a success never shows).
        const notice = page.locator('#result-panel .notice.error');
        const failure = (await notice.count()) > 0 ? ((await notice.first().textContent()) ?? '') : '';
        expect(await page.getAttribute('#result-panel', 'data-status'), failure).toBe('succeeded');
      }

      it('converts three dropped files, each with its own progress row, and zips the results in the browser', async () => {
        const page = await harness.open();
        const blue = { r: 30, g: 120, b: 200 };
        const picture = (format: 'png' | 'jpeg') =>
          sharp({ create: { width: 120, height: 80, channels: 3, background: blue } })
            [format]()
            .toBuffer();
        // Two share a name once converted ("photo.pdf"): the ZIP must keep both.
        const files = [
          { name: 'photo.png', mimeType: 'image/png', bytes: await picture('png') },
          { name: 'photo.jpg', mimeType: 'image/jpeg', bytes: await picture('jpeg') },
          { name: 'chart.png', mimeType: 'image/png', bytes: await picture('png') },
        ];
        await page.evaluate(
          (list) => {
            const transfer = new DataTransfer();
            for (const f of list)
              transfer.items.add(new File([new Uint8Array(f.bytes)], f.name, { type: f.mimeType }));
            const zone = document.getElementById('dropzone')!;
            for (const type of ['dragenter', 'dragover', 'drop'])
              zone.dispatchEvent(
                new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }),
              );
          },
          files.map((f) => ({ name: f.name, mimeType: f.mimeType, bytes: [...f.bytes] })),
        );

        await expect.poll(() => page.locator('#batch-files li').count()).toBe(3);
        expect(await page.isVisible('#detect-panel')).toBe(false);
        // Each file is checked; then the targets all three share are offered, pdf among them.
        await expect
          .poll(() => page.locator('#batch-target option[value="pdf"]').count(), { timeout: 60_000 })
          .toBe(1);
        await page.selectOption('#batch-target', 'pdf');
        await page.click('#batch-convert');
        await expect.poll(() => page.locator('#batch-results .batch-row').count()).toBe(3);
        await expect
          .poll(() => page.locator('#batch-results .batch-row[data-status="succeeded"]').count(), {
            timeout: 120_000,
          })
          .toBe(3);
        expect(await page.locator('#batch-results .batch-row progress').count()).toBe(3);
        const zipButton = page.locator('#download-zip');
        await zipButton.waitFor();
        expect(await zipButton.textContent()).toContain('3 files');
        await page.screenshot({ path: shot('web-batch-three'), fullPage: true });

        const download = page.waitForEvent('download', { timeout: 60_000 });
        await zipButton.click();
        const saved = join(web.scratch, 'all.zip');
        await (await download).saveAs(saved);
        const entries = await zipEntries(saved);
        expect([...entries.keys()]).toEqual(['photo.pdf', 'photo (2).pdf', 'chart.pdf']);
        for (const [name, bytes] of entries) {
          const out = join(web.scratch, `entry-${name.replace(/\W/g, '_')}.pdf`);
          await writeFile(out, bytes);
          expect(qpdfCheck(out), name).toBe(0);
          expect(pdfPageCount(out), name).toBe(1);
        }
        await harness.finish(page);
      });

      it('merges the chosen files into one PDF in the order set with the keyboard', async () => {
        const second = await textPdf(web.scratch, ['Delta from the second file'], 'second.pdf');
        const page = await harness.open();
        await page.setInputFiles('#file-input', [
          { name: 'three.pdf', mimeType: 'application/pdf', buffer: await readFile(threePages) },
          { name: 'second.pdf', mimeType: 'application/pdf', buffer: await readFile(second) },
        ]);
        await expect.poll(() => page.locator('#batch-files li').count()).toBe(2);
        // "Move down" on the first file, by keyboard: second.pdf goes first.
        await page.focus('#batch-files li[data-file="three.pdf"] button[data-move="1"]');
        await page.keyboard.press('Enter');
        await expect
          .poll(() =>
            page
              .locator('#batch-files li')
              .evaluateAll((lis) => lis.map((li) => li.getAttribute('data-file'))),
          )
          .toEqual(['second.pdf', 'three.pdf']);
        await page.click('#merge-button');
        const row = page.locator('#batch-results .batch-row').first();
        await expect
          .poll(() => row.getAttribute('data-status'), { timeout: 120_000 })
          .toMatch(/succeeded|failed/);
        expect(await row.getAttribute('data-status'), (await row.textContent()) ?? '').toBe('succeeded');
        const merged = await fetchLink(page, '#batch-results [data-artifact] a', 'merged.pdf');
        expect(qpdfCheck(merged)).toBe(0);
        expect(pdfPageCount(merged)).toBe(4);
        expect(pdfText(merged)).toMatch(
          /Delta from the second file[\s\S]*Alpha page one[\s\S]*Charlie page three/,
        );
        await harness.finish(page);
      });

      itStoreBlind('shows in its own row why a merge failed, naming the damaged input', async () => {
        const page = await harness.open();
        const pdf = await readFile(threePages);
        await page.setInputFiles('#file-input', [
          { name: 'one.pdf', mimeType: 'application/pdf', buffer: pdf },
          // A PDF header over nothing: the merge is refused for this input.
          { name: 'broken.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.7\n1 0 obj\n<<') },
        ]);
        await expect.poll(() => page.locator('#batch-files li').count()).toBe(2);
        await page.click('#merge-button');
        const row = page.locator('#batch-results .batch-row[data-status="failed"]');
        await row.waitFor({ timeout: 60_000 });
        expect(await row.locator('.notice.error').getAttribute('data-code')).toBeTruthy();
        expect(await row.textContent()).toContain('Merge of 2 files');
        expect(await row.textContent()).toContain('broken.pdf');
        await harness.finish(page);
      });

      itStoreBlind('makes a scanned PDF searchable with the OCR tool', async () => {
        const page = await harness.open();
        await choosePdf(page, await scanPdf(web.scratch), 'scan.pdf');
        await runTool(page, 'ocr', async (p) => {
          expect(await p.inputValue('#tool-ocr-lang')).toBe('eng');
        });
        const out = await fetchLink(page, '[data-artifact="pdf"] a', 'searchable.pdf');
        expect(qpdfCheck(out)).toBe(0);
        expect(pdfText(out)).toMatch(/INVOICE\s*42/);
        await harness.finish(page);
      });

      it('stamps a chosen picture on every page with the stamp tool, sent as its own part', async () => {
        const page = await harness.open();
        await choosePdf(page, threePages);
        const logo = await sharp({
          create: { width: 120, height: 60, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 0.6 } },
        })
          .png()
          .toBuffer();
        await runTool(page, 'stamp-picture', async (p) => {
          await p.setInputFiles('#tool-stamp-picture-stamp_image', {
            name: 'logo.png',
            mimeType: 'image/png',
            buffer: logo,
          });
          await p.selectOption('#tool-stamp-picture-stamp_image_position', 'top-left');
        });
        const out = await fetchLink(page, '[data-artifact="pdf"] a', 'stamped.pdf');
        expect(qpdfCheck(out)).toBe(0);
        const rows = spawnSync('pdfimages', ['-list', out], { encoding: 'utf8' })
          .stdout.split('\n')
          .slice(2)
          .map((l) => l.trim().split(/\s+/))
          .filter((c) => c[2] === 'image');
        expect(rows.map((c) => c[0])).toEqual(['1', '2', '3']);
        expect(pdfText(out)).toContain('Charlie page three');
        await harness.finish(page);
      });

      itStoreBlind('signs with a chosen certificate and its password with the sign tool', async () => {
        const page = await harness.open();
        await choosePdf(page, threePages);
        const p12 = makePkcs12(web.scratch, 'Grace Hopper', 'cobol');
        await runTool(page, 'sign', async (p) => {
          await p.setInputFiles('#tool-sign-sign_certificate', {
            name: 'identity.p12',
            mimeType: 'application/x-pkcs12',
            buffer: await readFile(p12),
          });
          await p.fill('#tool-sign-sign_password', 'cobol');
          await p.fill('#tool-sign-sign_page', '1');
        });
        const out = await fetchLink(page, '[data-artifact="pdf"] a', 'signed.pdf');
        const report = spawnSync('pdfsig', [out], { encoding: 'utf8' }).stdout;
        expect(report).toContain('Signer Certificate Common Name: Grace Hopper');
        expect(report).toContain('Signature Validation: Signature is Valid.');
        expect(pdfText(out)).toContain('Digitally signed by Grace Hopper');
        await harness.finish(page);
      });

      itStoreBlind('numbers the pages, then makes a PDF/A with a title, with their tools', async () => {
        const page = await harness.open();
        await choosePdf(page, threePages);
        await runTool(page, 'page-numbers', async (p) => {
          await p.fill('#tool-page-numbers-page_numbers_format', 'Page {n} of {total}');
        });
        const numbered = await fetchLink(page, '[data-artifact="pdf"] a', 'numbered.pdf');
        expect(qpdfCheck(numbered)).toBe(0);
        expect(pdfText(numbered)).toMatch(/Page 3 of 3/);

        await runTool(page, 'pdfa', async (p) => {
          await p.fill('#tool-pdfa-title', 'Quarterly archive');
        });
        const archive = await fetchLink(page, '[data-artifact="pdf"] a', 'archive.pdf');
        const xmp = spawnSync('pdfinfo', ['-meta', archive], { encoding: 'utf8' }).stdout;
        expect(xmp).toMatch(/pdfaid:part=['"]2['"]|<pdfaid:part>2</);
        expect(spawnSync('pdfinfo', [archive], { encoding: 'utf8' }).stdout).toMatch(
          /^Title:\s+Quarterly archive$/m,
        );
        await harness.finish(page);
      });

      itStoreBlind(
        'splits a three-page PDF into one file per page, then compresses it showing the sizes',
        async () => {
          const page = await harness.open();
          await choosePdf(page, threePages);
          // The tools offered follow what the server declares for pdf-pdf.
          const pageTools = [
            'redact',
            'crop',
            'rotate-pages',
            'pages-per-sheet',
            'remove-blank',
            'greyscale',
          ];
          for (const tool of ['split', 'extract', 'rotate', 'compress', 'protect', 'unlock', ...pageTools])
            expect(await page.locator(`#tool-${tool}`).count(), tool).toBe(1);

          await runTool(page, 'split', (p) => p.fill('#tool-split-split', '1'));
          await page.screenshot({ path: shot('web-pdf-split'), fullPage: true });
          for (const part of [1, 2, 3]) {
            const out = await fetchLink(page, `[data-artifact="pdf-${part}"] a`, `part-${part}.pdf`);
            expect(qpdfCheck(out)).toBe(0);
            expect(pdfPageCount(out)).toBe(1);
            expect(pdfText(out)).toContain(
              ['Alpha page one', 'Bravo page two', 'Charlie page three'][part - 1],
            );
          }
          expect(await page.locator('[data-artifact="zip"]').count()).toBe(1);

          // A picture-heavy PDF: a noisy page-wide photo at about 130 dpi, over the 108 dpi at
          // which the "screen" preset resamples it to 72.
          const photo = await sharp({
            create: {
              width: 1100,
              height: 700,
              channels: 3,
              background: '#808080',
              noise: { type: 'gaussian', mean: 128, sigma: 40 },
            },
          })
            .png()
            .toBuffer();
          const html = join(web.scratch, 'photo.html');
          await writeFile(
            html,
            `<!DOCTYPE html><html><body style="margin:0"><p>Site photo</p><img style="width:100%" src="data:image/png;base64,${photo.toString('base64')}"></body></html>`,
          );
          const { files } = await runConversion({
            input: html,
            from: 'html',
            to: 'pdf',
            outDir: web.scratch,
          });
          const heavy = files[0]!.path;
          await choosePdf(page, heavy, 'photo.pdf');
          await runTool(page, 'compress', async (p) => {
            await p.selectOption('#tool-compress-compress', 'screen');
          });
          const sizes = page.locator('#result-panel [data-size-before]');
          await sizes.waitFor();
          const before = Number(await sizes.getAttribute('data-size-before'));
          const after = Number(await sizes.getAttribute('data-size-after'));
          expect(before).toBe((await stat(heavy)).size);
          expect(after).toBeLessThan(before);
          expect(await sizes.textContent()).toMatch(/→.*smaller/);
          const small = await fetchLink(page, '[data-artifact="pdf"] a', 'compressed.pdf');
          expect((await stat(small)).size).toBe(after);
          expect(qpdfCheck(small)).toBe(0);
          expect(pdfPageCount(small)).toBe(pdfPageCount(heavy));
          await page.locator('#result-panel').scrollIntoViewIfNeeded();
          await page.screenshot({ path: shot('web-pdf-compressed'), fullPage: true });
          await harness.finish(page);
        },
      );

      it('protects a PDF with a password and unlocks it again; the password stays out of URLs and storage', async () => {
        const password = `Marker-${Date.now().toString(36)}-pw`;
        const urls: string[] = [];
        const page = await harness.open(PHONE, 'light', web.server.url, (p) =>
          p.on('request', (r) => urls.push(r.url())),
        );
        await choosePdf(page, threePages);
        await runTool(page, 'protect', async (p) => {
          expect(await p.getAttribute('#tool-protect-user_password', 'type')).toBe('password');
          expect(await p.getAttribute('#tool-protect-owner_password', 'type')).toBe('password');
          await p.fill('#tool-protect-user_password', password);
          await p.selectOption('#tool-protect-allow_copy', 'false');
        });
        const locked = await fetchLink(page, '[data-artifact="pdf"] a', 'locked.pdf');
        expect(qpdfSays('--requires-password', locked)).toBe(true);
        expect(qpdfCheck(locked, password)).toBe(0);
        await page.screenshot({ path: shot('web-phone-protect'), fullPage: true });

        await choosePdf(page, locked, 'locked.pdf');
        await runTool(page, 'unlock', async (p) => {
          expect(await p.getAttribute('#tool-unlock-password', 'type')).toBe('password');
          await p.fill('#tool-unlock-password', password);
        });
        const open = await fetchLink(page, '[data-artifact="pdf"] a', 'unlocked.pdf');
        expect(qpdfSays('--is-encrypted', open)).toBe(false);
        expect(qpdfCheck(open)).toBe(0);
        expect(pdfText(open)).toContain('Charlie page three');

        // Nowhere a password could linger: the address, the history, the storage, the fields.
        expect(page.url()).toBe(`${web.server.url}/`);
        expect(urls.filter((u) => u.includes(password))).toEqual([]);
        const stored = await page.evaluate(
          () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
        );
        expect(stored).not.toContain(password);
        const leftInFields = await page
          .locator('input[type="password"]')
          .evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value).filter(Boolean));
        expect(leftInFields).toEqual([]);
        await harness.finish(page);
      });

      itStoreBlind(
        'offers the page options the catalog declares for HTML to PDF and prints landscape A5',
        async () => {
          const page = await harness.open();
          const html =
            '<!DOCTYPE html><html><body><h1>Landscape notice</h1><p>Printed sideways.</p></body></html>';
          await page.setInputFiles('#file-input', {
            name: 'notice.html',
            mimeType: 'text/html',
            buffer: Buffer.from(html),
          });
          await expect.poll(() => page.textContent('[data-field="detected"]')).toContain('html');
          await page.check('input[name="conversion"][value="html-pdf"]');
          const declared = (await (await fetch(`${web.server.url}/api/public/catalog`)).json()) as {
            keys: Record<string, { options: string[] }>;
          };
          // Every declared option has its field, whatever the list is today.
          const shown = await page
            .locator('#conversion-options .option-field')
            .evaluateAll((fields) => fields.map((f) => f.getAttribute('data-option')));
          expect(shown.sort()).toEqual([...declared.keys['html-pdf']!.options].sort());
          expect(await page.isVisible('#opt-paper')).toBe(true);
          await page.fill('#opt-paper', 'A5');
          await page.selectOption('#opt-landscape', 'true');
          await page.screenshot({ path: shot('web-page-options'), fullPage: true });
          await page.click('#convert-button');
          const link = page.locator('[data-artifact] a').first();
          await link.waitFor({ timeout: 90_000 });
          const out = await fetchLink(page, '[data-artifact] a', 'landscape.pdf');
          const size = pdfPages(out);
          // A5 is 595 x 420 points; landscape puts the long side across.
          expect(Math.abs(size.width - 595)).toBeLessThan(2);
          expect(Math.abs(size.height - 420)).toBeLessThan(2);
          await harness.finish(page);
        },
      );

      itStoreBlind('lists several files readably at phone width', async () => {
        const page = await harness.open(PHONE);
        const pdf = await readFile(threePages);
        await page.setInputFiles('#file-input', [
          { name: 'a-rather-long-contract-name-2026.pdf', mimeType: 'application/pdf', buffer: pdf },
          { name: 'receipt.pdf', mimeType: 'application/pdf', buffer: pdf },
        ]);
        await expect.poll(() => page.locator('#batch-files li').count()).toBe(2);
        await expect
          .poll(() => page.locator('#batch-target option[value="png"]').count(), { timeout: 60_000 })
          .toBe(1);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width).toBeLessThanOrEqual(PHONE.width);
        await page.screenshot({ path: shot('web-phone-batch'), fullPage: true });
        await harness.finish(page);
      });
    },
  );
}
