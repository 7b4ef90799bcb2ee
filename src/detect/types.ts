import type { FormatId } from '../formats/index.js';

/** What one detector concluded: a canonical format id and how sure it is (0..1). */
export interface Finding {
  id: FormatId;
  confidence: number;
  /** The document is password-protected (its container says so; its content was not read). */
  encrypted?: boolean;
  /**
   * The bytes are one of these formats and cannot tell which (an encrypted OOXML package): a
   * declared format among them is taken as the detected one, else `id` at the finding's confidence.
   */
  oneOf?: readonly FormatId[];
  /** For text: the encoding its bytes are written in (lower case, WHATWG names). */
  encoding?: string;
  /** The format's version or variant where the bytes name one that engines treat apart (`Word 6.0/95`). */
  version?: string;
  /** How the encoding was found, and how sure that is (0..1). */
  encodingSource?: 'bom' | 'declared' | 'guessed';
  encodingConfidence?: number;
}

/**
 * Confidence levels shared by all detectors, so a number means the same thing everywhere:
 * SIGNATURE   an unambiguous magic signature;
 * CONTAINER   the container (ZIP, OLE2) was opened and its parts named the format;
 * STRONG_TEXT text that parsed completely as the format, or an explicit marker (root element, shebang);
 * TEXT        text with the format's clear structure (a table, a partial parse);
 * HEURISTIC   a prose or code format guessed from its traits;
 * PLAIN_TEXT  text that shows no format's traits;
 * WEAK        a guess from partial evidence (a truncated container);
 * FOREIGN     a known signature of a format outside the registry, reported as bin;
 * UNKNOWN     undecidable bytes; NOTHING: an empty file.
 */
export const CONFIDENCE = {
  SIGNATURE: 1,
  CONTAINER: 0.9,
  STRONG_TEXT: 0.85,
  TEXT: 0.7,
  HEURISTIC: 0.6,
  PLAIN_TEXT: 0.5,
  WEAK: 0.4,
  FOREIGN: 0.3,
  UNKNOWN: 0.1,
  NOTHING: 0,
} as const;
