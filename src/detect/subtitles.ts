import type { DecodedText } from './text/decode.js';
import { CONFIDENCE, type Finding } from './types.js';

/**
 * Subtitle and lyrics files are text whose first lines say what they are: a WebVTT or SSA header,
 * a SAMI or TTML root element, or cues whose timing lines follow the format's syntax. Checked
 * before the general text sniffers, which would call them plain text or XML.
 */

// SubRip's times separate milliseconds with a comma; a full stop is WebVTT's, and cues timed so
// without a WEBVTT header are neither (the mimetype library's `not.srt` sample).
const TIME = String.raw`\d{1,2}:\d{2}:\d{2},\d{1,3}`;
const SRT_CUE = new RegExp(String.raw`^\d+[ \t]*\r?\n${TIME}[ \t]*-->[ \t]*${TIME}`);
const LRC_LINE = /^\[(\d{1,3}:\d{2}(?:[.:]\d{1,3})?|(?:ar|ti|al|au|by|length|offset|re|ve|#)\s*:[^\]\n]*)\]/;

export function sniffSubtitles(doc: DecodedText): Finding | undefined {
  const text = doc.text.replace(/^\uFEFF/, '');
  const strong = (id: string): Finding => ({ id, confidence: CONFIDENCE.STRONG_TEXT });
  if (/^WEBVTT(?:[ \t][^\n]*)?\r?\n/.test(text) || text === 'WEBVTT') return strong('vtt');
  if (/^\s*\[Script Info\]\s*\r?\n/i.test(text)) return strong('ass');
  if (/^\s*<SAMI[\s>]/i.test(text)) return strong('smi');
  const root = /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:\w+:)?tt[\s>]([^>]*)>/.exec(text);
  if (root && /http:\/\/www\.w3\.org\/ns\/ttml/.test(root[1]!)) return strong('ttml');
  const lines = text.split('\n', 12).map((l) => l.replace(/\r$/, ''));
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0) return undefined;
  if (SRT_CUE.test(lines.slice(first).join('\n'))) return strong('srt');
  const content = lines
    .slice(first)
    .filter((l, i, all) => l.trim() !== '' && (i < all.length - 1 || doc.complete));
  // MicroDVD: every line is `{start}{end}text`, frame numbers in braces.
  if (content.length >= 1 && content.every((l) => /^\{\d+\}\{\d*\}/.test(l))) return strong('sub');
  if (content.length >= 2 && content.every((l) => LRC_LINE.test(l)) && content.some((l) => /^\[\d/.test(l)))
    return strong('lrc');
  return undefined;
}
