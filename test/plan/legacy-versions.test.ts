import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../../src/detect/index.js';
import { runConversion } from '../../src/run/runner.js';
import {
  filePart,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  tempDir,
} from '../server/helpers.js';

/**
 * A PowerPoint 4.0 file as detection sees one: a compound file whose slides are in a `PP40`
 * stream. No installed tool writes that version, so the PowerPoint 97 fixture's main stream is
 * renamed in its directory entry (name, then its byte length with the terminating NUL).
 */
function powerPoint4(): Buffer {
  const ppt = Buffer.from(readFileSync(join(import.meta.dirname, '../fixtures/detect/slides.ppt')));
  const at = ppt.indexOf(Buffer.from('PowerPoint Document', 'utf16le'));
  expect(at % 128).toBe(0);
  ppt.fill(0, at, at + 64);
  ppt.write('PP40', at, 'utf16le');
  ppt.writeUInt16LE(('PP40'.length + 1) * 2, at + 0x40);
  return ppt;
}

describe('a detected version no installed engine opens', () => {
  let server: TestServer;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    server = await startTestServer();
    dir = tempDir();
    file = join(dir, 'old.ppt');
    writeFileSync(file, powerPoint4());
  });
  afterAll(async () => {
    await server?.stop();
    removeDir(dir);
  });

  it('is detected as PowerPoint 4.0', async () => {
    expect(await detect(file)).toMatchObject({ detected: 'ppt', version: 'PowerPoint 4.0' });
  });

  it('is refused by the runner (the CLI and library path) as UNSUPPORTED_CONVERSION naming the version', async () => {
    const events: string[] = [];
    const run = runConversion({
      input: file,
      from: 'ppt',
      to: 'pdf',
      outDir: dir,
      baseName: 'old',
      onEvent: (e) => events.push(e.kind),
    });
    await expect(run).rejects.toMatchObject({
      code: 'UNSUPPORTED_CONVERSION',
      message: expect.stringMatching(/This ppt is PowerPoint 4\.0, which no installed engine opens/),
    });
    expect(events).not.toContain('engine-try');
  });

  it('answers 422 UNSUPPORTED_CONVERSION naming the version when submitted, before it is filed', async () => {
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'ppt-pdf' }),
      filePart('old.ppt', powerPoint4()),
    ]);
    expect(res.status, res.text).toBe(422);
    expect(res.json.error.code).toBe('UNSUPPORTED_CONVERSION');
    expect(res.json.error.message).toMatch(/PowerPoint 4\.0/);
    expect(res.json.error.message).toMatch(/PowerPoint 97 and later/);
  });
});
