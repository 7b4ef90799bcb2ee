import { copyFile, mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { type ConversionEdge, defineConverter } from '../src/engine/contract.js';
import type { OptionValues } from '../src/engine/option-kit.js';
import { optionsFor } from '../src/engine/options.js';
import { dpi, fit, height, width } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { fontconfigEnv, OUTLINE_EMOJI, useFontconfigInProcess } from '../src/fonts/fontconfig.js';
import { extensionOf, type FormatId } from '../src/formats/index.js';
import { EngineProcessError, probeBinary, runProcess } from '../src/run/process.js';

const BINARY = ['rsvg-convert'];

/** rsvg-convert's -f value for each target. */
const OUTPUT_FORMAT: Record<string, string> = { png: 'png', pdf: 'pdf', ps: 'ps', eps: 'eps' };
/** Rendered size cap: rsvg-convert would allocate the whole surface before drawing. */
const MAX_PIXELS = 100_000_000;

const edges: ConversionEdge[] = [
  { from: 'svg', to: 'png', family: 'image', lossy: true, cost: 3 },
  { from: 'svg', to: 'pdf', family: 'image', lossy: false, cost: 3 },
  { from: 'svg', to: 'ps', family: 'image', lossy: false, cost: 4 },
  { from: 'svg', to: 'eps', family: 'image', lossy: false, cost: 4 },
];

/** Size options: dpi scales (SVG user units are 1/96 inch); width/height set the box. */
function sizeArgs(options: Options): string[] {
  const args: string[] = [];
  if (options.dpi) args.push('--zoom', String(options.dpi / 96));
  if (options.width) args.push('--width', String(options.width));
  if (options.height) args.push('--height', String(options.height));
  if (options.width && options.height && options.fit !== 'fill') args.push('--keep-aspect-ratio');
  return args;
}

/**
 * Refuses a PNG render over MAX_PIXELS before rsvg-convert allocates it. The SVG's own size comes
 * from libvips, which reads it with the same librsvg (1 user unit = 1 pixel at density 72).
 */
async function checkRenderSize(svg: string, options: Options): Promise<void> {
  // libvips reads the SVG here with the same librsvg, in this process.
  useFontconfigInProcess(OUTLINE_EMOJI);
  const meta = await sharp(await readFile(svg), { density: 72, limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  if (!meta?.width || !meta.height) return; // rsvg-convert reports unreadable files itself
  const zoom = (options.dpi ?? 96) / 96;
  let w = meta.width * zoom;
  let h = meta.height * zoom;
  if (options.width && options.height) [w, h] = [options.width, options.height];
  else if (options.width) [w, h] = [options.width, (h * options.width) / w];
  else if (options.height) [w, h] = [(w * options.height) / h, options.height];
  if (w * h > MAX_PIXELS) {
    throw new FileconvError(
      'OUTPUT_TOO_LARGE',
      `The SVG would render at ${Math.round(w)} x ${Math.round(h)} pixels, over the limit of ${MAX_PIXELS / 1e6} megapixels.`,
    );
  }
}

function classify(e: EngineProcessError): FileconvError {
  if (/Error reading SVG|XML parse error|could not (load|parse)|not a valid SVG/i.test(e.output)) {
    return new FileconvError(
      'MALFORMED_DOCUMENT',
      `rsvg-convert could not read the SVG: ${e.stderr.trim().slice(0, 200)}`,
      {
        cause: e,
      },
    );
  }
  if (/larger than|too large|cannot create|surface/i.test(e.output)) {
    return new FileconvError('CONVERT_FAILED', 'The SVG renders larger than rsvg-convert can draw.', {
      cause: e,
    });
  }
  return new FileconvError('CONVERT_FAILED', 'rsvg-convert could not draw the SVG.', { cause: e });
}

const OPTIONS = {
  dpi,
  width,
  height,
  fit,
};
type Options = OptionValues<typeof OPTIONS>;

export default defineConverter({
  name: 'rsvg',
  description: 'librsvg (rsvg-convert): SVG to PNG, PDF, PostScript and EPS',
  packages: ['librsvg2-bin', 'fonts-dejavu-core'],
  edges,
  options: OPTIONS,
  concurrency: 2,
  timeoutMs: 60_000,
  probe: () => probeBinary(BINARY, ['--version'], /rsvg-convert version (\S+)/),
  async run({ edge, input, outDir, options: given }, ctx) {
    const options = optionsFor(OPTIONS, given);
    const probe = await probeBinary(BINARY, ['--version'], /rsvg-convert version (\S+)/);
    if (!probe.ok || !probe.path)
      throw new FileconvError('CONVERT_FAILED', probe.detail ?? 'rsvg-convert not found');
    const format = OUTPUT_FORMAT[edge.to as FormatId];
    if (!format) throw new FileconvError('CONVERT_FAILED', `rsvg-convert cannot write ${edge.to}`);
    // librsvg loads images referenced by relative paths from the SVG's own folder and below; an
    // otherwise empty folder leaves it nothing to find.
    const alone = join(ctx.workDir, 'svg');
    await mkdir(alone, { recursive: true });
    const svg = join(alone, 'input.svg');
    await copyFile(input, svg);
    if (edge.to === 'png') await checkRenderSize(svg, options);
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    try {
      await runProcess(probe.path, ['--format', format, ...sizeArgs(options), '--output', output, svg], ctx, {
        // With Debian's cairo 1.16 colour emoji survive in PDF but come out as broken masks in
        // pixels, so other targets draw outline emoji.
        env: fontconfigEnv(edge.to === 'pdf' ? {} : OUTLINE_EMOJI),
      });
    } catch (e) {
      await rm(output, { force: true });
      throw e instanceof EngineProcessError ? classify(e) : e;
    }
    const size = await stat(output).then(
      (s) => s.size,
      () => 0,
    );
    if (size === 0)
      throw new FileconvError('MALFORMED_DOCUMENT', 'rsvg-convert produced no output from the SVG.');
    ctx.progress(1);
    return { files: [output] };
  },
});
