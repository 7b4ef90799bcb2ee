import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import converter, { subripToText } from '../../converters/subtitles.js';
import { detectFile } from '../../src/detect/index.js';
import { EXPECTED, fixture } from '../detect/helpers.js';
import { runStep } from '../helpers/step.js';

const hasFfmpeg = (() => {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const SOURCES = ['srt', 'vtt', 'ass', 'sub', 'lrc', 'smi'];
const TARGETS = ['srt', 'vtt', 'ass', 'lrc', 'ttml'];
/** Every subtitle fixture (SSA v4.00 as well as ASS), with its format. */
const fixtures = Object.entries(EXPECTED).filter(
  ([name, id]) => name.startsWith('media/') && SOURCES.includes(id),
);

describe.skipIf(!hasFfmpeg)('subtitles converter', () => {
  it('declares every source to every target and to text', () => {
    const keys = new Set(converter.edges.map((e) => `${e.from}-${e.to}`));
    for (const from of SOURCES)
      for (const to of [...TARGETS, 'txt']) if (from !== to) expect(keys.has(`${from}-${to}`)).toBe(true);
  });

  it.each(fixtures)(
    'converts %s (%s) to each format, which detection names so, keeping the words',
    async (name, from) => {
      for (const to of TARGETS.filter((t) => t !== from)) {
        const { files } = await runStep(converter, from, to, fixture(name));
        expect((await detectFile(files[0]!)).id, `${from} -> ${to}`).toBe(to);
        expect(readFileSync(files[0]!, 'utf8')).toContain('General Kenobi!');
      }
    },
  );

  it.each(fixtures)('converts %s (%s) to the text of its cues', async (name, from) => {
    const { files } = await runStep(converter, from, 'txt', fixture(name));
    expect(readFileSync(files[0]!, 'utf8')).toBe('Hello there.\n\nGeneral Kenobi!\n');
  });

  it('keeps multi-line cues together in text', () => {
    expect(subripToText('1\r\n00:00:01,000 --> 00:00:02,000\r\nTwo\r\nlines\r\n\r\n')).toBe('Two\nlines\n');
  });

  it('refuses bytes that are not the declared format as malformed', async () => {
    await expect(runStep(converter, 'vtt', 'srt', fixture('media/audio.caf'))).rejects.toMatchObject({
      code: 'MALFORMED_DOCUMENT',
    });
  });
});
