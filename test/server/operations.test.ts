import { execFile, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import officeCrypto from 'officecrypto-tool';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/server/observability/logging.js';
import { encryptedPdf, textPdf } from '../converters/_image-samples.js';
import { fixture } from '../detect/helpers.js';
import { LOCKED_TEXT, makeLockedOffice, unoPython } from '../helpers/locked-office.js';
import { makeLockedPpt, poiClassPath } from '../helpers/locked-ppt.js';
import {
  filePart,
  get,
  type Json,
  jsonLineSink,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from './helpers.js';

const execFileAsync = promisify(execFile);
const lines: Json[] = [];
let server: TestServer;
let dir: string;
/** The marker of the Office files' test, and those files, saved before the server starts. */
const officeMarker = `marker-${randomUUID()}`;
let locked: ReturnType<typeof makeLockedOffice>;
/** A DOCX with Office's own (Agile) encryption under the marker, also made before the server starts. */
let agileDocx: Buffer;
beforeAll(async () => {
  dir = tempDir();
  // Saving them blocks this thread for seconds, long enough for kept-alive connections to drop.
  if (unoPython) locked = makeLockedOffice(dir, officeMarker);
  agileDocx = officeCrypto.encrypt(readFileSync(fixture('document.docx')), { password: officeMarker });
  server = await startTestServer(
    {},
    { logger: createLogger({ format: 'json', level: 'info', destination: jsonLineSink(lines) }) },
  );
});
afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
  removeDir(dir);
});

async function convert(meta: Record<string, unknown>, name: string, bytes: Buffer): Promise<Json> {
  const res = await post(`${server.url}/api/public/convert`, [metaPart(meta), filePart(name, bytes)]);
  if (res.status !== 202) return res.json;
  return waitDone(server.url, res.json.request_id as string);
}

async function download(id: string, name: string): Promise<string> {
  const first = await request(`${server.url}/api/public/requests/${id}/artifacts/${name}`);
  const location = String(first.headers.location);
  await first.body.dump();
  const file = await request(new URL(location, server.url).href);
  const path = join(dir, `${id}-${name}.pdf`);
  const { writeFile } = await import('node:fs/promises');
  await writeFile(path, Buffer.from(await file.body.arrayBuffer()));
  return path;
}

/** Every byte the server kept or said: its data folder's files, its logs, the answers given. */
function everything(answers: unknown[]): Buffer[] {
  const files: Buffer[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d)) {
      const path = join(d, entry);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(readFileSync(path));
    }
  };
  walk(server.dataDir);
  return [
    ...files,
    Buffer.from(JSON.stringify(lines)),
    Buffer.from(server.logs.join('\n')),
    Buffer.from(JSON.stringify(answers)),
  ];
}

describe('PDF operations through the API', () => {
  it('protects, unlocks and refuses a wrong password, with the password nowhere the server keeps or says', async () => {
    const marker = `marker-${randomUUID()}`;
    const pdf = readFileSync(await textPdf(dir, ['Contract page one', 'Contract page two'], 'contract.pdf'));
    const answers: unknown[] = [];

    const protectedRun = await convert(
      { conversion: 'pdf-pdf', options: { user_password: marker, allow_copy: false } },
      'contract.pdf',
      pdf,
    );
    answers.push(protectedRun);
    expect(protectedRun.status).toBe('succeeded');
    const locked = await download(protectedRun.request_id, 'pdf');
    expect(spawnSync('qpdf', ['--requires-password', locked]).status).toBe(0);
    expect(spawnSync('qpdf', [`--password=${marker}`, '--check', locked]).status).toBe(0);

    const unlocked = await convert(
      { conversion: 'pdf-txt', options: { password: marker } },
      'locked.pdf',
      readFileSync(locked),
    );
    answers.push(unlocked);
    expect(unlocked.status).toBe('succeeded');

    const wrong = await convert(
      { conversion: 'pdf-pdf', options: { password: `${marker}-wrong` } },
      'locked.pdf',
      readFileSync(locked),
    );
    answers.push(wrong);
    expect(wrong.status).toBe('failed');
    expect(wrong.error.code).toBe('ENCRYPTED_DOCUMENT');
    expect(wrong.error.message).toMatch(/option password/);

    const missing = await convert(
      { conversion: 'pdf-txt' },
      'locked.pdf',
      readFileSync(await encryptedPdf(join(dir, 'contract.pdf'), join(dir, 'gs-locked.pdf'))),
    );
    answers.push(missing);
    expect(missing.error.code).toBe('ENCRYPTED_DOCUMENT');

    for (const r of [protectedRun, unlocked, wrong]) {
      answers.push((await get(`${server.url}/api/public/requests/${r.request_id}/timeline`)).json);
      answers.push((await get(`${server.url}/api/public/requests/${r.request_id}`)).json);
    }
    answers.push((await get(`${server.url}/metrics`)).text);
    for (const bytes of everything(answers)) expect(bytes.includes(Buffer.from(marker))).toBe(false);
  });

  it.skipIf(!unoPython)(
    'opens password-protected Office files from the API and the CLI, with the password nowhere kept or said (skipped: no python3-uno)',
    { timeout: 400_000 },
    async () => {
      const marker = officeMarker;
      const answers: unknown[] = [];

      const detected = await post(`${server.url}/api/public/detect`, [
        filePart('budget.xlsx', readFileSync(locked.xlsx)),
      ]);
      answers.push(detected.json);
      expect(detected.json.report).toMatchObject({ detected: 'xlsx', match: true, encrypted: true });

      const opened = await convert(
        { conversion: 'docx-pdf', options: { password: marker } },
        'report.docx',
        readFileSync(locked.docx),
      );
      answers.push(opened);
      expect(opened.status).toBe('succeeded');
      const pdf = await download(opened.request_id, 'pdf');
      expect(spawnSync('pdftotext', [pdf, '-'], { encoding: 'utf8' }).stdout).toContain(LOCKED_TEXT.writer);

      // Office's own (Agile) encryption, to PDF/A with a title: the export's settings beside the password.
      const archived = await convert(
        { conversion: 'docx-pdf', options: { password: marker, pdfa: '2b', title: 'Archived report' } },
        'agile.docx',
        agileDocx,
      );
      answers.push(archived);
      expect(archived.status).toBe('succeeded');
      const archive = await download(archived.request_id, 'pdf');
      const xmp = spawnSync('pdfinfo', ['-meta', archive], { encoding: 'utf8' }).stdout;
      expect(xmp).toMatch(/<pdfaid:part>2</);
      expect(xmp).toContain('Archived report');

      // The data engine reads workbooks: LibreOffice opens the protected one first.
      const table = await convert(
        { conversion: 'xls-csv', options: { password: marker } },
        'budget.xls',
        readFileSync(locked.xls),
      );
      answers.push(table);
      expect(table.status).toBe('succeeded');

      const wrong = await convert(
        { conversion: 'odt-pdf', options: { password: `${marker}-wrong` } },
        'notes.odt',
        readFileSync(locked.odt),
      );
      const missing = await convert({ conversion: 'pptx-pdf' }, 'deck.pptx', readFileSync(locked.pptx));
      answers.push(wrong, missing);
      for (const refused of [wrong, missing]) {
        expect(refused.status).toBe('failed');
        expect(refused.error.code).toBe('ENCRYPTED_DOCUMENT');
        expect(refused.error.message).toMatch(/--password/);
        expect(refused.error.message).toMatch(/"options": \{"password"/);
      }

      // Asynchronously: a blocked thread would let the server drop this file's kept-alive connections.
      const cli = await execFileAsync(process.execPath, [
        join(import.meta.dirname, '..', '..', 'bin', 'fileconv'),
        'convert',
        locked.ods,
        '--to',
        'pdf',
        '-o',
        join(dir, 'sheet.pdf'),
        '--password',
        marker,
      ]);
      expect(spawnSync('pdftotext', [join(dir, 'sheet.pdf'), '-'], { encoding: 'utf8' }).stdout).toContain(
        LOCKED_TEXT.calc,
      );
      answers.push(cli.stdout, cli.stderr);

      for (const r of [opened, archived, table, wrong, missing]) {
        answers.push((await get(`${server.url}/api/public/requests/${r.request_id}/timeline`)).json);
        answers.push((await get(`${server.url}/api/public/requests/${r.request_id}`)).json);
      }
      answers.push((await get(`${server.url}/metrics`)).text);
      for (const bytes of everything(answers)) expect(bytes.includes(Buffer.from(marker))).toBe(false);
    },
  );

  it.skipIf(!poiClassPath || !unoPython)(
    'opens a password-protected PowerPoint 97 deck from the API, with the password nowhere kept or said (skipped: no Java with Apache POI, or no python3-uno)',
    { timeout: 300_000 },
    async () => {
      const marker = `marker-${randomUUID()}`;
      const deck = readFileSync(
        await makeLockedPpt(join(dir, 'ppt'), marker, LOCKED_TEXT.impress, fixture('image.png')),
      );
      const answers: unknown[] = [];
      const opened = await convert(
        { conversion: 'ppt-pdf', options: { password: marker } },
        'deck.ppt',
        deck,
      );
      const wrong = await convert(
        { conversion: 'ppt-pdf', options: { password: `${marker}-wrong` } },
        'deck.ppt',
        deck,
      );
      answers.push(opened, wrong);
      expect(opened.status).toBe('succeeded');
      const pdf = await download(opened.request_id, 'pdf');
      expect(spawnSync('pdftotext', [pdf, '-'], { encoding: 'utf8' }).stdout).toContain(LOCKED_TEXT.impress);
      expect(wrong.status).toBe('failed');
      expect(wrong.error.code).toBe('ENCRYPTED_DOCUMENT');
      for (const r of [opened, wrong]) {
        answers.push((await get(`${server.url}/api/public/requests/${r.request_id}/timeline`)).json);
        answers.push((await get(`${server.url}/api/public/requests/${r.request_id}`)).json);
      }
      answers.push((await get(`${server.url}/metrics`)).text);
      for (const bytes of everything(answers)) expect(bytes.includes(Buffer.from(marker))).toBe(false);
    },
  );

  it('extracts pages and splits into parts plus a ZIP of them', async () => {
    const pdf = readFileSync(await textPdf(dir, ['One', 'Two', 'Three', 'Four', 'Five'], 'five.pdf'));
    const split = await convert({ conversion: 'pdf-pdf', options: { split: 2 } }, 'five.pdf', pdf);
    expect(split.status).toBe('succeeded');
    expect(split.artifacts.map((a: Json) => a.name)).toEqual(['pdf-1', 'pdf-2', 'pdf-3', 'zip']);
    const pages = await convert({ conversion: 'pdf-pdf', options: { pages: '2-3' } }, 'five.pdf', pdf);
    const part = await download(pages.request_id, 'pdf');
    const info = spawnSync('pdfinfo', [part], { encoding: 'utf8' }).stdout;
    expect(info).toMatch(/^Pages:\s+2$/m);
  });

  it('refuses an option no step of the conversion honours, naming the route', async () => {
    const pdf = readFileSync(await textPdf(dir, ['Only page'], 'one.pdf'));
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'pdf-txt', options: { split: 2 } }),
      filePart('one.pdf', pdf),
    ]);
    expect(res.status).toBe(400);
    expect(res.json.error.message).toBe(
      'option split does not apply to this conversion (pdf -(poppler)-> txt)',
    );
  });
});
