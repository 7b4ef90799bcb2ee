import { beforeAll, describe, expect, it } from 'vitest';
import type { Converter } from '../../src/engine/contract.js';
import { loadConverters } from '../../src/engine/registry.js';
import { planConversion } from '../../src/plan/graph.js';

// The real converters as declared: where two engines can do a step, the faster (in-process or a
// lighter spawn) must be tried first and the heavier kept as the fallback.
let converters: Converter[];
beforeAll(async () => {
  converters = await loadConverters();
});

function stepEngines(from: string, to: string): string[] {
  const plan = planConversion(from, to, converters);
  expect(plan, `${from}->${to} has a plan`).toBeDefined();
  expect(plan!.steps).toHaveLength(1);
  return plan!.steps[0]!.engines;
}

describe('fastest engine first', () => {
  it('png->webp: sharp (libvips in-process) before ImageMagick', () => {
    const engines = stepEngines('png', 'webp');
    expect(engines[0]).toBe('sharp');
    expect(engines).toContain('imagemagick');
    expect(engines.indexOf('sharp')).toBeLessThan(engines.indexOf('imagemagick'));
  });

  it('pdf->png: pdftoppm (poppler) before ghostscript', () => {
    const engines = stepEngines('pdf', 'png');
    expect(engines[0]).toBe('poppler');
    expect(engines).toContain('ghostscript');
    expect(engines.indexOf('poppler')).toBeLessThan(engines.indexOf('ghostscript'));
  });

  it('csv->json: the in-process data engine first', () => {
    expect(stepEngines('csv', 'json')[0]).toBe('data');
  });

  it('xls and ods to csv: LibreOffice to xlsx, then the data engine, which picks the sheet', () => {
    for (const from of ['xls', 'ods']) {
      const plan = planConversion(from, 'csv', converters)!;
      expect(plan.steps.map((s) => [s.to, s.engines[0]])).toEqual([
        ['xlsx', 'libreoffice'],
        ['csv', 'data'],
      ]);
    }
  });

  it('avif->png: sharp first, ImageMagick (libheif) for what libvips cannot open', () => {
    expect(stepEngines('avif', 'png')).toEqual(['sharp', 'imagemagick']);
  });

  it('html->pdf: Chromium draws web pages, LibreOffice is the fallback', () => {
    const engines = stepEngines('html', 'pdf');
    expect(engines[0]).toBe('chromium');
    expect(engines).toContain('libreoffice');
  });

  it('md->pdf: one step through the print stylesheet and Chromium', () => {
    expect(stepEngines('md', 'pdf')).toEqual(['pandoc-chromium']);
  });
});
