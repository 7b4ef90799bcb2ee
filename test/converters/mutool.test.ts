import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import mutool from '../../converters/mutool.js';
import { findBinary } from '../../src/run/binary.js';
import { writeXps } from '../../src/selftest/page-seeds.js';
import { expectCode, runStep, tempDir } from '../helpers/step.js';

const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
const tools = ['mutool', 'gs', 'pdftotext', 'pdffonts', 'pdftoppm'];
const missing = tools.filter((t) => !findBinary([t]));

describe.skipIf(missing.length > 0)(
  `mutool converter (needs ${missing.join(', ') || 'nothing more'})`,
  () => {
    it('prints an XPS page to a PDF that keeps its text and embeds its font', async () => {
      const xps = join(tempDir(), 'letter.xps');
      await writeXps(xps, 'Dear reader, naïve café', FONT);
      const { files } = await runStep(mutool, 'xps', 'pdf', xps);
      expect((await execa('pdftotext', [files[0]!, '-'])).stdout).toContain('Dear reader, naïve café');
      expect((await execa('pdffonts', [files[0]!])).stdout).toMatch(/DejaVu ?Sans.*\byes\b/);
      const text = await runStep(mutool, 'xps', 'txt', xps);
      expect((await execa('cat', [text.files[0]!])).stdout).toContain('Dear reader, naïve café');
    });

    it("draws Ghostscript's XPS, whose text is outlines, and asks for OCR to read it", async () => {
      const dir = tempDir();
      const ps = join(dir, 'page.ps');
      writeFileSync(
        ps,
        '%!PS\n/Helvetica findfont 48 scalefont setfont 72 600 moveto (XPS) show\nshowpage\n',
      );
      const xps = join(dir, 'page.xps');
      await execa('gs', [
        '-q',
        '-dSAFER',
        '-dBATCH',
        '-dNOPAUSE',
        '-sDEVICE=xpswrite',
        `-sOutputFile=${xps}`,
        ps,
      ]);
      const { files } = await runStep(mutool, 'xps', 'pdf', xps);
      // The page is drawn, not blank: its darkest pixel is black.
      const png = await execa('pdftoppm', ['-r', '30', '-png', files[0]!], { encoding: 'buffer' });
      const { channels } = await sharp(png.stdout).stats();
      expect(channels[0]!.min).toBeLessThan(64);
      await expectCode(runStep(mutool, 'xps', 'txt', xps), 'NEEDS_OCR');
    });

    it('reports a package that is no XPS as MALFORMED_DOCUMENT', async () => {
      const broken = join(tempDir(), 'broken.xps');
      writeFileSync(broken, Buffer.from('PK\x03\x04 not a zip at all'));
      await expectCode(runStep(mutool, 'xps', 'pdf', broken), 'MALFORMED_DOCUMENT');
    });
  },
);
