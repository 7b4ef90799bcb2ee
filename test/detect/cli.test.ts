import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from './helpers.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'fileconv');

/** Runs the CLI as a separate process, as a user would. */
function fileconv(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

let dir: string;
let fakePdf: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileconv-detect-cli-'));
  fakePdf = join(dir, 'scan.pdf');
  await copyFile(fixture('image.png'), fakePdf);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fileconv detect', () => {
  it('prints one JSON object a line with --json, including the file path', async () => {
    const { code, stdout } = await fileconv('detect', '--json', fixture('document.docx'), fakePdf);
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      expect.objectContaining({
        file: fixture('document.docx'),
        declared: 'docx',
        detected: 'docx',
        match: true,
      }),
      expect.objectContaining({
        file: fakePdf,
        declared: 'pdf',
        detected: 'png',
        match: false,
        mime: 'image/png',
      }),
    ]);
    expect(typeof lines[0].confidence).toBe('number');
  });

  it('prints a table with a header row without --json', async () => {
    const { code, stdout } = await fileconv('detect', fixture('audio.opus'));
    expect(code).toBe(0);
    const [header, row] = stdout.trim().split('\n');
    expect(header!.split(/\s+/)).toEqual(['FILE', 'DECLARED', 'DETECTED', 'MATCH', 'MIME', 'CONFIDENCE']);
    expect(row!.split(/\s+/).slice(1)).toEqual(['opus', 'opus', 'yes', 'audio/opus', '1.00']);
  });

  it('exits 3 under --strict when a file is not what it declares, 0 when all match', async () => {
    expect((await fileconv('detect', '--strict', fakePdf)).code).toBe(3);
    expect((await fileconv('detect', '--strict', fixture('image.png'))).code).toBe(0);
    expect((await fileconv('detect', '--strict', '--declared', 'png', fakePdf)).code).toBe(0);
  });

  it('names a missing file on stderr, still reports the others, and exits 2', async () => {
    const missing = join(dir, 'gone.docx');
    const { code, stdout, stderr } = await fileconv('detect', '--json', missing, fixture('image.gif'));
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([`fileconv detect: cannot read ${missing}`]);
    expect(JSON.parse(stdout.trim())).toMatchObject({ detected: 'gif' });
  });

  it('refuses an unknown --declared format with exit 1', async () => {
    const { code, stderr } = await fileconv('detect', '--declared', 'nope', fixture('image.png'));
    expect(code).toBe(1);
    expect(stderr).toContain('unknown format "nope"');
  });
});
