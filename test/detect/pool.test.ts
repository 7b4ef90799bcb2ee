import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detect } from '../../src/detect/index.js';
import { closeDetectPool, detectOffThread } from '../../src/detect/pool.js';
import { expectCode } from '../helpers/step.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'detect');

afterAll(() => closeDetectPool());

describe('detection on the worker thread', () => {
  it('gives the report detect() gives, for every fixture', async () => {
    const files = readdirSync(FIXTURES).filter((f) => statSync(join(FIXTURES, f)).isFile());
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const path = join(FIXTURES, f);
      const hints = { filename: f, contentType: 'application/octet-stream' };
      expect(await detectOffThread(path, hints), f).toEqual(await detect(path, hints));
    }
  });

  it('throws the errors detect() throws', async () => {
    await expectCode(detectOffThread(join(FIXTURES, 'nothing-here.bin'), {}), 'FILE_NOT_FOUND');
    await expectCode(
      detectOffThread(join(FIXTURES, 'page.html'), { declared: 'no-such-format' }),
      'INVALID_REQUEST',
    );
  });
});
