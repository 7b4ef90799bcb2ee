import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { TEST_LOOPBACK_ENV } from '../../src/intake/loopback.js';
import { shownText, withoutHiddenCharacters } from '../../src/intake/untrusted-text.js';
import { createLogger } from '../../src/server/observability/logging.js';
import { textPdf } from '../converters/_image-samples.js';
import { closeServer, startOrigin } from '../intake/servers.js';
import {
  type ChildServer,
  filePart,
  get,
  type Json,
  jsonLineSink,
  metaPart,
  post,
  removeDir,
  startChildServer,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from '../server/helpers.js';

/**
 * Names that act instead of being read: a terminal colour escape, a bell, DEL, a right-to-left
 * override that shows `ctl\u202Egnp.exe.jpg` as an image, an isolate, a zero-width space and a
 * byte order mark. Letters of other scripts are no threat and must come back as they went.
 */
const HOSTILE = 'ctl\u001b[31m\u0007\u007f\u202egpj.exe\u2066\u200b\ufeff.csv';
const CLEAN = withoutHiddenCharacters(HOSTILE);
const LETTERS = 'résumé 報告 تقرير.csv';
const CSV = 'name,qty\napple,3\n';

/**
 * Controls, format characters (bidirectional overrides and isolates, zero-width and invisible
 * ones) and separators found in `text`, but the line ends of our own text formats and the joiners
 * words need. Written here, not taken from the code under test.
 */
function hidden(text: string): string[] {
  return [...text].filter(
    (ch) => ch !== '\n' && ch !== '\u200c' && ch !== '\u200d' && /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(ch),
  );
}

const lines: Json[] = [];
let server: TestServer;
let child: ChildServer;
let origin: Awaited<ReturnType<typeof startOrigin>>;
const dir = tempDir();

beforeAll(async () => {
  server = await startTestServer(
    {},
    { logger: createLogger({ format: 'json', level: 'info', destination: jsonLineSink(lines) }) },
  );
  origin = await startOrigin((req, res) => {
    const disposition = `attachment; filename*=UTF-8''${encodeURIComponent(HOSTILE)}`;
    res.writeHead(200, {
      'content-type': 'text/csv',
      ...(req.url === '/named' ? { 'content-disposition': disposition } : {}),
    });
    res.end(CSV);
  });
  child = await startChildServer(join(dir, 'child'), ['--rate-limit', '0'], { [TEST_LOOPBACK_ENV]: '1' });
}, 90_000);

afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
  child.child.kill('SIGTERM');
  await child.exited;
  await closeServer(origin.server);
  removeDir(dir);
});

/** Everything a client sees of a finished request: its answer, timeline (JSON and text), the recent list, the download's headers. */
async function whatComesBack(base: string, id: string, owner: string): Promise<string[]> {
  const done = await waitDone(base, id);
  const timeline = await get(`${base}/api/public/requests/${id}/timeline`);
  const text = await request(`${base}/api/public/requests/${id}/timeline`, {
    headers: { accept: 'text/plain' },
  });
  const recent = await get(`${base}/api/public/requests/recent`, { 'x-owner-token': owner });
  const shown = [JSON.stringify(done), timeline.text, await text.body.text(), recent.text];
  for (const artifact of done.artifacts ?? []) {
    const link = String((await get(artifact.download)).headers.location);
    const file = await request(link);
    shown.push(String(file.headers['content-disposition']));
    await file.body.dump();
  }
  return shown;
}

describe('untrusted names and text shown back', () => {
  it('names lose the characters that act, and keep every letter', () => {
    expect(CLEAN).toBe('ctl[31mgpj.exe.csv');
    expect(withoutHiddenCharacters(LETTERS)).toBe(LETTERS);
    // Joiners spell Persian words and emoji sequences: they stay.
    expect(withoutHiddenCharacters('می\u200cخواهم 👩\u200d💻')).toBe('می\u200cخواهم 👩\u200d💻');
    expect(shownText('a\u202eb\u0007')).toBe('a\\u{202E}b\\u{7}');
  });

  it('an upload named with them comes back without them: answers, timeline, recent list, download, logs', async () => {
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'csv-json' }),
      filePart(HOSTILE, CSV),
    ]);
    expect(res.status).toBe(202);
    const owner = String(res.headers['x-owner-token']);
    const shown = await whatComesBack(server.url, res.json.request_id, owner);
    for (const text of [...shown, JSON.stringify(lines)]) expect(hidden(text)).toEqual([]);
    expect(shown.join('\n')).toContain('ctl[31mgpj.exe');
    const letters = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'csv-json' }),
      filePart(LETTERS, CSV),
    ]);
    const recent = await whatComesBack(
      server.url,
      letters.json.request_id,
      String(letters.headers['x-owner-token']),
    );
    expect(recent.join('\n')).toContain('résumé 報告 تقرير');
  });

  it('input quoted in an error message is escaped', async () => {
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: `csv-\u202ejson`, options: { [`q\u001b[2J`]: 1 } }),
      filePart('a.csv', CSV),
    ]);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(hidden(res.text)).toEqual([]);
  });

  it('a URL source named with them, by its path or by Content-Disposition, comes back without them', async () => {
    for (const url of [`${origin.base}/named`, `${origin.base}/${encodeURIComponent(HOSTILE)}`]) {
      const res = await post(`${child.url}/api/public/convert`, [
        metaPart({ source_url: url, conversion: 'csv-json' }),
      ]);
      expect(res.status, res.text).toBe(202);
      const shown = await whatComesBack(child.url, res.json.request_id, String(res.headers['x-owner-token']));
      for (const text of shown) expect(hidden(text)).toEqual([]);
      expect(shown.join('\n')).toContain('gpj.exe');
    }
    expect(hidden(child.output.join(''))).toEqual([]);
  });

  it("a multi-page result's ZIP names its entries without them", async () => {
    const pdf = readFileSync(await textPdf(dir, ['one', 'two'], 'two.pdf'));
    const name = HOSTILE.replace('.csv', '.pdf');
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'pdf-png' }),
      filePart(name, pdf),
    ]);
    const done = await waitDone(server.url, res.json.request_id);
    const zip = done.artifacts.find((a: Json) => a.name === 'zip');
    const link = String((await get(zip.download)).headers.location);
    const path = join(dir, 'pages.zip');
    writeFileSync(path, Buffer.from(await (await request(link)).body.arrayBuffer()));
    const entries = await new Promise<string[]>((resolve, reject) => {
      yauzl.open(path, { lazyEntries: true }, (err, file) => {
        if (err || !file) return reject(err);
        const names: string[] = [];
        file.on('entry', (e: yauzl.Entry) => {
          names.push(e.fileName);
          file.readEntry();
        });
        file.on('end', () => resolve(names));
        file.readEntry();
      });
    });
    expect(entries).toHaveLength(2);
    for (const entry of entries) expect(hidden(entry)).toEqual([]);
  });

  it('the CLI prints a file named with them without them acting', async () => {
    const input = join(dir, HOSTILE);
    writeFileSync(input, CSV);
    const bin = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));
    const convert = await execa(
      'node',
      [bin, 'convert', input, '--to', 'json', '-o', join(dir, 'cli-out/')],
      {
        reject: false,
        stdin: 'ignore',
      },
    );
    expect(convert.exitCode).toBe(0);
    const detect = await execa('node', [bin, 'detect', input], { reject: false, stdin: 'ignore' });
    for (const out of [detect.stdout, detect.stderr]) expect(hidden(out)).toEqual([]);
    const outputs = readdirSync(join(dir, 'cli-out'));
    expect(outputs).toEqual(['ctl[31mgpj.exe.json']);
  });
});
