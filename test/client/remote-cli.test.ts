// The remote CLI (`--server`, `--key`, FILECONV_SERVER, FILECONV_KEY) against a started server:
// the same command run here and on the server gives the same result lines, files and exit codes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCatalog } from '../../src/plan/index.js';
import { addApiKey, ROOT, removeDir, startTestServer, type TestServer, tempDir } from '../server/helpers.js';

const BIN = join(ROOT, 'bin', 'fileconv');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'detect');

let server: TestServer;
let key = '';
const dirs: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  // As `fileconv keys create` makes one, on the server's own database.
  key = await addApiKey(server.dataDir);
});

afterAll(async () => {
  await server?.stop();
  removeDir(server?.dataDir ?? '');
  for (const d of dirs) removeDir(d);
});

function fileconv(args: string[], cwd: string, env: Record<string, string> = {}) {
  return execa('node', [BIN, ...args], {
    cwd,
    reject: false,
    stdin: 'ignore',
    // A FILECONV_SERVER of the machine running the tests must not turn the local runs remote.
    env: { FILECONV_SERVER: '', FILECONV_KEY: '', ...env },
  });
}

/** A fresh folder holding the given files. */
function folder(files: Record<string, string | Buffer>): string {
  const dir = tempDir('fileconv-remote-');
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/** The same command run here and against the server (FILECONV_SERVER, FILECONV_KEY), each in its own copy of the files. */
async function bothWays(args: string[], files: Record<string, string | Buffer>) {
  const here = folder(files);
  const there = folder(files);
  const [local, remote] = await Promise.all([
    fileconv(args, here),
    fileconv(args, there, { FILECONV_SERVER: server.url, FILECONV_KEY: key }),
  ]);
  // Result lines name absolute output paths: each run's own folder.
  const lines = (stdout: string, dir: string) =>
    stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l.replaceAll(dir, '<dir>')));
  return {
    here,
    there,
    local: { ...local, lines: lines(local.stdout, here) },
    remote: { ...remote, lines: lines(remote.stdout, there) },
  };
}

// Each case starts the CLI twice (here and remote): room for a busy machine's slow start-ups.
describe('fileconv convert --server', { timeout: 300_000 }, () => {
  it('converts csv to json with the same result line, file and exit code as a local run', async () => {
    const csv = 'name,qty\napple,3\npear,5\n';
    const r = await bothWays(['convert', 'items.csv', '--to', 'json', '--json'], { 'items.csv': csv });
    expect(r.remote.exitCode).toBe(0);
    expect(r.remote.lines).toEqual([
      { input: 'items.csv', ok: true, outputs: ['<dir>/items.json'], key: 'csv-json' },
    ]);
    expect(r.remote.lines).toEqual(r.local.lines);
    expect(readFileSync(join(r.there, 'items.json'))).toEqual(readFileSync(join(r.here, 'items.json')));
  });

  it('fails an unsupported pair with exit 3, as a local run does', async () => {
    const r = await bothWays(['convert', 'items.csv', '--to', 'mp3', '--json'], {
      'items.csv': 'a,b\n1,2\n',
    });
    expect(r.local.exitCode).toBe(3);
    expect(r.remote.exitCode).toBe(3);
    expect(r.remote.lines[0].error.code).toBe('UNSUPPORTED_CONVERSION');
    expect(r.local.lines[0].error.code).toBe('UNSUPPORTED_CONVERSION');
  });

  it('fails a malformed file and a missing one with the codes and exit code of a local run', async () => {
    const args = ['convert', 'broken.json', 'missing.json', '--to', 'yaml', '--json', '--concurrency', '1'];
    const r = await bothWays(args, { 'broken.json': '{"a": [1, 2' });
    expect(r.local.exitCode).toBe(1);
    expect(r.remote.exitCode).toBe(1);
    const codes = (lines: { input: string; ok: boolean; error?: { code: string } }[]) =>
      lines.map(({ input, ok, error }) => ({ input, ok, code: error?.code }));
    expect(codes(r.remote.lines)).toEqual(codes(r.local.lines));
    expect(codes(r.remote.lines)).toContainEqual({
      input: 'missing.json',
      ok: false,
      code: 'FILE_NOT_FOUND',
    });
  });

  it('takes --server and --key on the command line; a wrong key exits 1 with INVALID_API_KEY', async () => {
    const dir = folder({ 'conf.json': '{"a": 1}' });
    const bad = await fileconv(
      ['convert', 'conf.json', '--to', 'yaml', '--json', '--server', server.url, '--key', 'fck_not-a-key'],
      dir,
    );
    expect(bad.exitCode).toBe(1);
    expect(JSON.parse(bad.stdout).error.code).toBe('INVALID_API_KEY');
  });
});

describe('fileconv detect --server and catalog --server', () => {
  it('detects with the same rows and the same --strict exit code', async () => {
    const png = readFileSync(join(FIXTURES, 'image.png'));
    const r = await bothWays(['detect', 'image.png', 'photo.jpg', 'notes.md', '--json', '--strict'], {
      'image.png': png,
      'photo.jpg': png,
      'notes.md': '# Notes\n\nSome *text* here.\n',
    });
    expect(r.local.exitCode).toBe(3);
    expect(r.remote.exitCode).toBe(3);
    expect(r.remote.lines).toEqual(r.local.lines);
    expect(r.remote.lines[1]).toMatchObject({
      file: 'photo.jpg',
      declared: 'jpg',
      detected: 'png',
      match: false,
    });
  });

  it('exits 2 for an unreadable file, as a local run does, and says when the server refuses', async () => {
    const dir = folder({ 'a.csv': 'a,b\n1,2\n' });
    const missing = await fileconv(['detect', 'a.csv', 'gone.pdf', '--server', server.url], dir);
    expect(missing.exitCode).toBe(2);
    expect(missing.stdout).toMatch(/^a\.csv\s+csv\s+csv\s+yes/m);
    const refused = await fileconv(['detect', 'a.csv', '--server', server.url, '--key', 'fck_wrong'], dir);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/API key is invalid/);
  });

  it("lists the server's catalog, filtered as a local run filters it", async () => {
    const remote = await fileconv(['catalog', '--from', 'csv', '--json', '--server', server.url], folder({}));
    expect(remote.exitCode).toBe(0);
    const shown = (
      JSON.parse(remote.stdout).conversions as { key: string; family: string; lossy: boolean }[]
    ).map(({ key, family, lossy }) => ({ key, family, lossy }));
    const local = (await listCatalog())
      .filter((p) => p.from === 'csv')
      .map(({ key, family, lossy }) => ({ key, family, lossy }));
    expect(shown).toEqual(local);
    expect(shown.map((c) => c.key)).toContain('csv-json');
  });
});
