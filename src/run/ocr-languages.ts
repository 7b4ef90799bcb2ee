import { execa } from 'execa';
import { FileconvError } from '../errors/index.js';
import { findBinary } from './binary.js';

/**
 * Tesseract's languages on this machine, and the Debian package that brings each one: `lang`
 * asks for OCR languages by their Tesseract code (`chi_sim`, joined with `+`), which are checked
 * when a request is validated rather than when its OCR step starts.
 */

/**
 * The packs the container image carries: the 20 languages most used for documents (the world's
 * largest written languages, with Latin, Cyrillic, Arabic, Devanagari, Bengali and CJK scripts).
 */
export const IMAGE_OCR_LANGUAGES = [
  'eng',
  'deu',
  'fra',
  'spa',
  'por',
  'ita',
  'nld',
  'pol',
  'rus',
  'ukr',
  'tur',
  'ara',
  'hin',
  'ben',
  'chi_sim',
  'chi_tra',
  'jpn',
  'kor',
  'vie',
  'ind',
] as const;

/** A Tesseract language code as Debian packs them (`eng`, `chi_sim`, `deu_latf`). */
export const OCR_LANGUAGE_CODE = /^[a-z]{3}(_[a-z]{3,4})?$/;

/** The Debian package of a language: `chi_sim` is in tesseract-ocr-chi-sim. */
export function ocrLanguagePackage(code: string): string {
  return `tesseract-ocr-${code.toLowerCase().replaceAll('_', '-')}`;
}

let listed: Promise<string[]> | undefined;

/** `tesseract --list-langs` (osd, the orientation model, is no language); empty without Tesseract. */
export function installedOcrLanguages(): Promise<string[]> {
  listed ??= (async () => {
    const tesseract = findBinary(['tesseract']);
    if (!tesseract) return [];
    const r = await execa(tesseract, ['--list-langs'], {
      reject: false,
      timeout: 15_000,
      stdin: 'ignore',
      all: true,
    });
    return (r.all ?? '')
      .split('\n')
      .slice(1)
      .map((l) => l.trim())
      .filter((l) => l !== '' && l !== 'osd')
      .sort();
  })().catch((e) => {
    listed = undefined;
    throw e;
  });
  return listed;
}

/** Forgets the listed languages (after `doctor --install --ocr-langs`). */
export function resetOcrLanguages(): void {
  listed = undefined;
}

/** Refuses OCR languages (`fra+chi_sim`) that are not installed, naming the packages that bring them. */
export async function assertOcrLanguages(lang: string): Promise<void> {
  const installed = new Set(await installedOcrLanguages());
  const missing = lang.split('+').filter((l) => !installed.has(l));
  if (missing.length === 0) return;
  const named = missing.map((l) =>
    OCR_LANGUAGE_CODE.test(l) ? `${l} (Debian package ${ocrLanguagePackage(l)})` : `"${l.slice(0, 20)}"`,
  );
  throw new FileconvError(
    'INVALID_REQUEST',
    `OCR language ${named.join(', ')} is not installed here; installed: ${[...installed].join(', ') || 'none'}.`,
  );
}
