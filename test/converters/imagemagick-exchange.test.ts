import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import converter, { EXCHANGE, findImageMagick } from '../../converters/imagemagick.js';
import { detectFile } from '../../src/detect/index.js';
import { EXPECTED, fixture } from '../detect/helpers.js';
import { runStep } from '../helpers/step.js';

const found = await findImageMagick();

/** The detection fixtures of these formats: each variant (P4/P5/P6/P7, JP2 and J2K) is read. */
const sources = Object.entries(EXPECTED).filter(
  ([name, id]) => name.startsWith('media/') && EXCHANGE.includes(id),
);

describe.skipIf(!found.ok)('imagemagick: image formats beyond the web', () => {
  it('has a fixture of each', () => {
    expect(new Set(sources.map(([, id]) => id))).toEqual(new Set(EXCHANGE));
  });

  it.each(sources)('converts %s (%s) to PNG and JPEG at its size', async (name, id) => {
    for (const to of ['png', 'jpg']) {
      const { files } = await runStep(converter, id, to, fixture(name));
      expect((await detectFile(files[0]!)).id).toBe(to);
      expect(await sharp(files[0]!).metadata()).toMatchObject({ width: 16, height: 16 });
    }
  });

  it.each(EXCHANGE)('writes %s from PNG, which detection names so', async (to) => {
    const { files } = await runStep(converter, 'png', to, fixture('image.png'));
    expect((await detectFile(files[0]!)).id).toBe(to);
  });

  it('refuses a TGA that is not one as malformed', async () => {
    await expect(runStep(converter, 'tga', 'png', fixture('media/audio.caf'))).rejects.toMatchObject({
      code: 'MALFORMED_DOCUMENT',
    });
  });
});
