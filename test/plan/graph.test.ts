import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ConversionEdge, Converter } from '../../src/engine/contract.js';
import { buildCatalog, planConversion } from '../../src/plan/graph.js';
import { upperEngine } from '../run/engines.js';

function e(from: string, to: string, cost: number, extra: Partial<ConversionEdge> = {}): ConversionEdge {
  return { from, to, family: 'document', lossy: false, cost, ...extra };
}

const engine = (name: string, edges: ConversionEdge[]): Converter => upperEngine(name, edges);

describe('planConversion', () => {
  it('prefers lossless paths over lossy ones, even when longer and dearer', () => {
    const engines = [
      engine('a', [e('docx', 'pdf', 5, { lossy: true }), e('docx', 'odt', 20), e('odt', 'pdf', 20)]),
    ];
    const plan = planConversion('docx', 'pdf', engines)!;
    expect(plan.steps.map((s) => `${s.from}-${s.to}`)).toEqual(['docx-odt', 'odt-pdf']);
    expect(plan.lossy).toBe(false);
    expect(plan.cost).toBe(40);
  });

  it('then the cheapest, then the fewest steps', () => {
    const engines = [
      engine('a', [
        e('md', 'html', 1),
        e('html', 'pdf', 1),
        e('md', 'pdf', 5),
        e('md', 'odt', 1),
        e('odt', 'pdf', 1),
      ]),
    ];
    expect(planConversion('md', 'pdf', engines)!.steps).toHaveLength(2);
    const flat = [engine('a', [e('md', 'html', 1), e('html', 'pdf', 1), e('md', 'pdf', 2)])];
    expect(planConversion('md', 'pdf', flat)!.steps).toHaveLength(1);
  });

  it('breaks ties by engine file order, then by format id', () => {
    const engines = [
      engine('a', [e('md', 'odt', 1), e('odt', 'pdf', 1)]),
      engine('b', [e('md', 'html', 1), e('html', 'pdf', 1)]),
    ];
    expect(planConversion('md', 'pdf', engines)!.steps.map((s) => s.to)).toEqual(['odt', 'pdf']);
    const sameEngine = [
      engine('a', [e('md', 'odt', 1), e('odt', 'pdf', 1), e('md', 'html', 1), e('html', 'pdf', 1)]),
    ];
    expect(planConversion('md', 'pdf', sameEngine)!.steps.map((s) => s.to)).toEqual(['html', 'pdf']);
  });

  it('lists every engine of a step, cheapest first, as fallbacks', () => {
    const engines = [
      engine('slow', [e('png', 'jpg', 10, { family: 'image' })]),
      engine('fast', [e('png', 'jpg', 1, { family: 'image' })]),
    ];
    const plan = planConversion('png', 'jpg', engines)!;
    expect(plan.steps[0]!.engines).toEqual(['fast', 'slow']);
    expect(plan.cost).toBe(1);
  });

  it('stops at three steps and excludes same-format pairs', () => {
    const chain = [
      engine('a', [e('txt', 'md', 1), e('md', 'html', 1), e('html', 'odt', 1), e('odt', 'pdf', 1)]),
    ];
    expect(planConversion('txt', 'odt', chain)!.steps).toHaveLength(3);
    expect(planConversion('txt', 'pdf', chain)).toBeUndefined();
    expect(planConversion('txt', 'txt', chain)).toBeUndefined();
  });

  it('allows a multi-output step only as the last step', () => {
    const engines = [
      engine('a', [
        e('pdf', 'png', 10, { multiOutput: true, lossy: true }),
        e('png', 'jpg', 1, { family: 'image' }),
      ]),
    ];
    expect(planConversion('pdf', 'png', engines)).toBeDefined();
    expect(planConversion('pdf', 'jpg', engines)).toBeUndefined();
    // a single-output engine for the same step makes the longer path possible, through it only
    const more = [...engines, engine('b', [e('pdf', 'png', 20, { lossy: true })])];
    const plan = planConversion('pdf', 'jpg', more)!;
    expect(plan.steps[0]!.engines).toEqual(['b']);
    expect(planConversion('pdf', 'png', more)!.steps[0]!.engines).toEqual(['a', 'b']);
  });

  it('takes the family of the first step, unless a step is ocr or voice', () => {
    const engines = [
      engine('a', [
        e('pdf', 'png', 10, { lossy: true }),
        e('png', 'txt', 10, { family: 'ocr', lossy: true }),
        e('txt', 'wav', 5, { family: 'voice', lossy: true }),
      ]),
    ];
    expect(planConversion('pdf', 'png', engines)!.family).toBe('document');
    expect(planConversion('pdf', 'txt', engines)!.family).toBe('ocr');
    expect(planConversion('png', 'txt', engines)!.family).toBe('ocr');
    expect(planConversion('txt', 'wav', engines)!.family).toBe('voice');
    expect(planConversion('pdf', 'txt', engines)!.lossy).toBe(true);
  });

  it('resolves aliases and skips engines whose probe failed', () => {
    const ok = engine('a', [e('jpg', 'png', 1, { family: 'image' })]);
    const missing = engine('b', [e('png', 'gif', 1, { family: 'image' })]);
    const engines = [
      { converter: ok, probe: { ok: true, version: '1' } },
      { converter: missing, probe: { ok: false, detail: 'not installed' } },
    ];
    expect(planConversion('jpeg', 'png', engines)!.key).toBe('jpg-png');
    expect(planConversion('png', 'gif', engines)).toBeUndefined();
    expect(buildCatalog(engines).map((p) => p.key)).toEqual(['jpg-png']);
  });
});

describe('buildCatalog', () => {
  it('has one plan per reachable pair, sorted by key', () => {
    const engines = [engine('a', [e('txt', 'md', 1), e('md', 'html', 1), e('html', 'txt', 1)])];
    const keys = buildCatalog(engines).map((p) => p.key);
    expect(keys).toEqual(['html-md', 'html-txt', 'md-html', 'md-txt', 'txt-html', 'txt-md']);
  });
});

describe('buildCatalog options of an operation that keeps the format', () => {
  it('lists the options of an engine that joins only when asked (like OCRmyPDF for ocr)', () => {
    const pages = { schema: z.string(), description: 'pages' };
    const ocr = { schema: z.boolean(), description: 'ocr' };
    const plain = { ...engine('plain', [e('pdf', 'pdf', 1)]), options: { pages } };
    const reader = {
      ...engine('reader', [e('pdf', 'pdf', 40, { skipWhen: (o) => o.ocr !== true })]),
      options: { ocr },
    };
    const plan = buildCatalog([plain, reader]).find((p) => p.key === 'pdf-pdf');
    // The usual route is the plain engine alone; the catalog still says `ocr` can be asked.
    expect(plan?.steps[0]?.engines).toEqual(['plain']);
    expect(plan?.options).toEqual(['ocr', 'pages']);
  });
});
