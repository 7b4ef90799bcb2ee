import { isUtf8 } from 'node:buffer';
import { readFile, writeFile } from 'node:fs/promises';
import { declaredName, declareUtf8 } from '../detect/text/charset-declared.js';
import { decodeFound, encodingNote, encodingOf, type SourceEncoding } from '../detect/text/encoding.js';
import { type ConversionOptions, optionsFor } from '../engine/options.js';
import { DOOR_OPTIONS } from '../engine/shared-options.js';
import type { FormatId } from '../formats/index.js';
import { isTextFormat, readableEncoding } from '../formats/text.js';

/** A text input as every engine gets it: UTF-8, and how its encoding was found. */
export interface TextAtTheDoor {
  /** The bytes to hand on; the input's own when it already was plain UTF-8. */
  bytes: Uint8Array;
  found: SourceEncoding;
  /** The timeline's line. */
  note: string;
}

/**
 * Decodes a text input once, before any engine sees it (docs/encodings.md): by its byte order
 * mark, its declaration, a guess, or `given` (the `encoding` option), then hands it on as UTF-8
 * without a byte order mark, its declaration saying UTF-8. Engines each guessing on their own
 * read the same file differently (LibreOffice's CSV import is told one charset, Chromium
 * honours a meta only in the first kilobyte, pandoc reads only UTF-8). Undefined for a format
 * that is not text.
 */
export function textAtTheDoor(bytes: Uint8Array, from: FormatId, given?: string): TextAtTheDoor | undefined {
  if (!isTextFormat(from)) return undefined;
  // The option was checked against the same names when the request was read.
  const how = encodingOf(bytes, from, given && readableEncoding(given));
  // Bytes whose encoding could not be told go on as they are: each engine refuses or reads them as before.
  const plain =
    !how.confident ||
    (how.encoding === 'UTF-8' &&
      how.source !== 'bom' &&
      isUtf8(bytes) &&
      (declaredName(bytes, from) ?? 'utf-8') === 'utf-8');
  // Only bytes that change are decoded: a large UTF-8 file passes without a copy as a string.
  const utf8 = plain ? bytes : Buffer.from(declareUtf8(decodeFound(bytes, how), from), 'utf8');
  return { bytes: utf8, found: how, note: `the ${from} source is ${encodingNote(how)}` };
}

/** A text input's copy rewritten as UTF-8 before the first engine reads it (text-door.ts). */
export async function decodeCopyAtTheDoor(
  copy: string,
  from: FormatId,
  emit: (kind: string, message: string) => void,
  given?: string,
): Promise<void> {
  const bytes = await readFile(copy);
  const door = textAtTheDoor(bytes, from, given);
  if (!door) return;
  emit('encoding', door.note);
  if (door.bytes !== bytes) await writeFile(copy, door.bytes);
}

/** The `encoding` option of a conversion, when it was given. */
export const encodingOption = (options: ConversionOptions): string | undefined =>
  optionsFor(DOOR_OPTIONS, options).encoding;
