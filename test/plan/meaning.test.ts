import { beforeAll, describe, expect, it } from 'vitest';
import type { ConversionEdge, Converter } from '../../src/engine/contract.js';
import { loadConverters } from '../../src/engine/registry.js';
import { buildCatalog, planConversion } from '../../src/plan/graph.js';
import { upperEngine } from '../run/engines.js';

function e(from: string, to: string, family: ConversionEdge['family']): ConversionEdge {
  return { from, to, family, lossy: true, cost: 5 };
}

describe('the catalog rule on a small graph', () => {
  const engines = [
    upperEngine('office', [
      e('docx', 'pdf', 'document'),
      e('docx', 'txt', 'document'),
      e('pdf', 'epub', 'document'),
    ]),
    upperEngine('raster', [e('pdf', 'png', 'document'), e('png', 'pdf', 'image')]),
    upperEngine('ocr', [e('png', 'txt', 'ocr')]),
    upperEngine('speech', [e('txt', 'wav', 'voice'), e('wav', 'txt', 'voice')]),
    upperEngine('media', [e('mp4', 'wav', 'video'), e('mp4', 'png', 'video')]),
  ];
  const keys = new Set(buildCatalog(engines).map((p) => p.key));

  it('keeps document to document to image, and image to text through OCR', () => {
    expect(planConversion('docx', 'png', engines)!.steps.map((s) => s.to)).toEqual(['pdf', 'png']);
    expect(keys.has('docx-epub')).toBe(true);
    expect(keys.has('png-txt')).toBe(true);
    expect(keys.has('png-pdf')).toBe(true);
  });

  it('reads aloud only the plain text the user gave', () => {
    expect(keys.has('txt-wav')).toBe(true);
    expect(keys.has('docx-wav')).toBe(false);
    expect(keys.has('png-wav')).toBe(false);
  });

  it('puts no picture into an ebook and no video frame on a page or through OCR', () => {
    expect(keys.has('png-epub')).toBe(false);
    expect(keys.has('mp4-png')).toBe(true);
    expect(keys.has('mp4-pdf')).toBe(false);
  });

  it('offers a transcript as plain text only', () => {
    expect(keys.has('wav-txt')).toBe(true);
    expect(keys.has('mp4-txt')).toBe(true);
    expect(planConversion('mp4', 'txt', engines)!.steps.map((s) => s.to)).toEqual(['wav', 'txt']);
    expect(keys.has('wav-pdf')).toBe(false);
    expect(keys.has('mp4-epub')).toBe(false);
  });

  it("writes graphics tools' formats from pictures only, never a rendered page or a video frame", () => {
    const more = [...engines, upperEngine('magick', [e('png', 'tga', 'image'), e('png', 'jpg', 'image')])];
    const listed = new Set(buildCatalog(more).map((p) => p.key));
    expect(listed.has('png-tga')).toBe(true);
    expect(listed.has('pdf-tga')).toBe(false);
    expect(listed.has('docx-tga')).toBe(false);
    expect(listed.has('mp4-tga')).toBe(false);
    expect(listed.has('docx-jpg')).toBe(true);
    expect(listed.has('mp4-jpg')).toBe(true);
  });

  it("lists a step marked alone only as a whole conversion from the user's file", () => {
    const save = { ...e('docx', 'docm', 'document'), alone: true as const };
    const more = [...engines, upperEngine('variant', [save, e('docm', 'pdf', 'document')])];
    const listed = new Set(buildCatalog(more).map((p) => p.key));
    expect(listed.has('docx-docm')).toBe(true);
    expect(listed.has('docm-pdf')).toBe(true);
    expect(listed.has('pdf-docm')).toBe(false);
    expect(listed.has('txt-docm')).toBe(false);
  });

  it('converts subtitles between each other and to plain text only', () => {
    const more = [
      ...engines,
      upperEngine('subs', [e('srt', 'vtt', 'text'), e('vtt', 'srt', 'text'), e('srt', 'txt', 'text')]),
      upperEngine('writer', [e('txt', 'docx', 'document'), e('txt', 'pdf', 'document')]),
    ];
    const listed = new Set(buildCatalog(more).map((p) => p.key));
    expect(listed.has('srt-vtt')).toBe(true);
    expect(listed.has('vtt-txt')).toBe(true);
    expect(listed.has('srt-docx')).toBe(false);
    expect(listed.has('srt-pdf')).toBe(false);
    expect(listed.has('srt-wav')).toBe(false);
    expect(listed.has('txt-docx')).toBe(true);
  });

  it('takes no sound from a video whose format has none, directly or through another video', () => {
    const more = [
      ...engines,
      upperEngine('raw', [e('y4m', 'wav', 'video'), e('y4m', 'mp4', 'video'), e('y4m', 'png', 'video')]),
    ];
    const listed = new Set(buildCatalog(more).map((p) => p.key));
    expect(listed.has('y4m-mp4')).toBe(true);
    expect(listed.has('y4m-png')).toBe(true);
    expect(listed.has('y4m-wav')).toBe(false);
    expect(listed.has('y4m-txt')).toBe(false);
    expect(listed.has('mp4-wav')).toBe(true);
  });

  it('finds another path when the cheapest one breaks the rule', () => {
    // png to pdf to txt would extract the text layer of a picture: OCR is the way
    const more = [...engines, upperEngine('pdftext', [e('pdf', 'txt', 'document')])];
    expect(planConversion('png', 'txt', more)!.steps.map((s) => s.to)).toEqual(['txt']);
    expect(planConversion('docx', 'txt', more)!.steps.map((s) => s.to)).toEqual(['txt']);
  });
});

describe('the catalog rule on the declared engines', () => {
  let converters: Converter[];
  let keys: Set<string>;
  beforeAll(async () => {
    converters = await loadConverters();
    keys = new Set(buildCatalog(converters).map((p) => p.key));
  });

  it.each([
    'docx-pdf',
    'pdf-png',
    'xlsx-csv',
    'png-txt',
    'jpg-pdf',
    'md-epub',
    'txt-mp3',
    'mp4-mp3',
    'mp4-gif',
    'mp3-txt',
    'gif-mp4',
    'gif-webm',
  ])('lists %s', (key) => {
    expect(keys.has(key)).toBe(true);
  });

  it.each([
    'png-mp3',
    'png-epub',
    'png-azw3',
    'png-tex',
    'png-rst',
    'png-fb2',
    'doc-mp3',
    'pdf-mp3',
    'docx-mp4',
    'xlsx-epub',
    'mp4-pdf',
    'mp3-docx',
    'png-mp4',
    'jpg-webm',
    'gif-mp3',
  ])('does not list %s', (key) => {
    expect(keys.has(key)).toBe(false);
  });
});
