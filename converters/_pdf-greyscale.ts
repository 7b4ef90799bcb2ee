import { bool, defineOption, OPERATION_ORDER } from '../src/engine/option-kit.js';

/** Greyscale PDFs: Ghostscript's pdfwrite turns every colour, of text, paths and pictures, to grey. */
export const greyscale = defineOption(
  bool(),
  'true: every colour of the PDF (text, drawings, pictures) turned to grey (Ghostscript)',
  {
    order: OPERATION_ORDER.greyscale,
    excludes: { pdfa: 'PDF/A is written in sRGB colours' },
  },
);

/**
 * pdfwrite's colour conversion to one grey channel; nothing when greyscale is not asked. Pages
 * keep their rotation: pdfwrite would otherwise turn each page to the direction of its text.
 */
export function greyscaleArgs(o: { greyscale?: boolean }): string[] {
  if (o.greyscale !== true) return [];
  return ['-sColorConversionStrategy=Gray', '-dProcessColorModel=/DeviceGray', '-dAutoRotatePages=/None'];
}
