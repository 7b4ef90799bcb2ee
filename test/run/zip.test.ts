import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { zipOutputs } from '../../src/run/zip.js';
import { tempDir } from '../helpers/step.js';

function entries(zipPath: string): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.open(zipPath, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out: Record<string, string> = {};
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out[entry.fileName] = Buffer.concat(chunks).toString('utf8');
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.readEntry();
    });
  });
}

describe('zipOutputs', () => {
  it('zips files under their base names or given names', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'page-1.png'), 'one');
    writeFileSync(join(dir, 'page-2.png'), 'two');
    const zipPath = join(dir, 'all.zip');
    await zipOutputs(
      [join(dir, 'page-1.png'), { path: join(dir, 'page-2.png'), name: 'second.png' }],
      zipPath,
    );
    expect(await entries(zipPath)).toEqual({ 'page-1.png': 'one', 'second.png': 'two' });
  });
});
