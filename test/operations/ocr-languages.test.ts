import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import sharp from 'sharp';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ocrLanguagePackages } from '../../src/cli/doctor-apt.js';
import {
  IMAGE_OCR_LANGUAGES,
  installedOcrLanguages,
  ocrLanguagePackage,
} from '../../src/run/ocr-languages.js';
import {
  downloadArtifact,
  filePart,
  get,
  type Json,
  metaPart,
  post,
  ROOT,
  removeDir,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from '../server/helpers.js';

const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));
const fileconv = (args: string[], cwd: string) =>
  execa('node', [BIN, ...args], { cwd, reject: false, stdin: 'ignore' });

/** Thai: a language no test machine here is given, so it stands for one that is not installed. */
const MISSING = 'tha';
const installed = await installedOcrLanguages();
const missingReally = !installed.includes(MISSING);

const TEXT_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="700" height="140"><rect width="100%" height="100%" fill="white"/>' +
  '<text x="30" y="95" font-family="sans-serif" font-size="64" fill="black">BONJOUR MONDE</text></svg>';

let server: TestServer;
let dir: string;
let png: Buffer;
beforeAll(async () => {
  dir = tempDir('fileconv-ocr-langs-');
  png = await sharp(Buffer.from(TEXT_SVG)).flatten({ background: '#ffffff' }).png().toBuffer();
  await sharp(png).toFile(join(dir, 'words.png'));
  server = await startTestServer();
  // The catalog probed before the first upload, which would otherwise wait for it.
  expect((await get(`${server.url}/api/public/conversions`)).status).toBe(200);
});
afterAll(async () => {
  await server?.stop();
  removeDir(server?.dataDir ?? '');
  removeDir(dir);
});

describe('OCR languages', () => {
  it.skipIf(!missingReally)(
    'answers 400 naming the Debian package while the file is still being sent',
    async () => {
      const boundary = 'ocrlangboundary';
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n` +
          `${JSON.stringify({ conversion: 'png-txt', options: { lang: `eng+${MISSING}` } })}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="words.png"\r\nContent-Type: image/png\r\n\r\n`,
      );
      // The body's end is held back until the answer has come: the refusal cannot wait for it.
      let answered!: () => void;
      const held = new Promise<void>((resolve) => {
        answered = resolve;
      });
      async function* body() {
        yield head;
        yield png.subarray(0, 100);
        await held;
        yield png.subarray(100);
        yield Buffer.from(`\r\n--${boundary}--\r\n`);
      }
      const res = await request(`${server.url}/api/public/convert`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: Readable.from(body()),
      });
      answered();
      const json = (await res.body.json()) as Json;
      expect(res.statusCode).toBe(400);
      expect(json.error.code).toBe('INVALID_REQUEST');
      expect(json.error.message).toContain(`${MISSING} (Debian package tesseract-ocr-${MISSING})`);
      expect(json.error.message).toMatch(/installed: .*eng/);
    },
  );

  it.skipIf(!installed.includes('fra'))('reads French words with lang fra through the server', async () => {
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'png-txt', options: { lang: 'fra' } }),
      filePart('words.png', png, 'image/png'),
    ]);
    expect(res.status, res.text).toBe(202);
    const done = await waitDone(server.url, res.json.request_id);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    const id = res.json.request_id as string;
    const text = readFileSync(await downloadArtifact(server.url, id, done.artifacts[0].name, dir), 'utf8');
    expect(text.toUpperCase()).toContain('BONJOUR');
  });

  it.skipIf(!missingReally)(
    'refuses a missing language on the command line with exit 2, naming the package',
    async () => {
      const r = await fileconv(['convert', 'words.png', '--to', 'txt', '-O', `lang=${MISSING}`], dir);
      expect(r.exitCode, r.stdout + r.stderr).toBe(2);
      expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'INVALID_REQUEST' });
      expect(r.stdout).toContain(`tesseract-ocr-${MISSING}`);
    },
  );

  it('doctor takes --ocr-langs only with --install, and only Tesseract codes', async () => {
    const alone = await fileconv(['doctor', '--ocr-langs', 'fra'], dir);
    expect(alone.exitCode).toBe(2);
    expect(alone.stderr).toMatch(/goes with --install/);
    expect(ocrLanguagePackages('fra, spa,chi_sim')).toEqual([
      'tesseract-ocr-fra',
      'tesseract-ocr-spa',
      'tesseract-ocr-chi-sim',
    ]);
    expect(() => ocrLanguagePackages('fra;rm -rf')).toThrow(/not one/);
  });

  it('the container image installs the 20 languages of IMAGE_OCR_LANGUAGES', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const asked = /--ocr-langs (\S+)/.exec(dockerfile)?.[1]?.split(',');
    expect(asked).toEqual([...IMAGE_OCR_LANGUAGES]);
    expect(new Set(asked).size).toBe(20);
    expect(ocrLanguagePackage('chi_tra')).toBe('tesseract-ocr-chi-tra');
  });
});
