import type { ArtifactChecks } from '../engine/checks.js';
import type { ConversionOptions } from '../engine/options.js';
import type { FormatId } from '../formats/index.js';
import { delimitedTextCounts } from './delimited.js';
import { carriesWords, textOfBytes, totalWords, wordCounts, wordsKept } from './text.js';

/**
 * Text and data formats whose counts and words are read from their bytes alone (no tools, no
 * containers): what an engine converting in memory can measure where it converts.
 */
const IN_MEMORY: ReadonlySet<FormatId> = new Set(['csv', 'tsv', 'json', 'jsonl', 'yaml', 'toml', 'xml']);

export function measuredInMemory(format: FormatId): boolean {
  return IN_MEMORY.has(format);
}

const round = (n: number) => Math.round(n * 1000) / 1000;

function wordsOfBytes(bytes: Uint8Array, format: FormatId): Map<string, number> | undefined {
  if (!carriesWords(format)) return undefined;
  try {
    const text = textOfBytes(bytes, format);
    return text === undefined ? undefined : wordCounts(text);
  } catch {
    return undefined;
  }
}

/**
 * artifactChecks (checks.ts) of a one-file conversion between formats measuredInMemory, on the
 * source's and the output's bytes: the same counts, words and recall, without reading files.
 */
export function inMemoryChecks(
  from: FormatId,
  to: FormatId,
  source: Uint8Array,
  output: Uint8Array,
  options?: ConversionOptions,
): ArtifactChecks {
  const checks: ArtifactChecks = {};
  try {
    if (to === 'csv' || to === 'tsv')
      Object.assign(
        checks,
        delimitedTextCounts(
          Buffer.from(output.buffer, output.byteOffset, output.byteLength).toString('utf8'),
          to,
        ),
      );
  } catch {
    // A file this module cannot parse has no counts (as countFile).
  }
  const outputWords = wordsOfBytes(output, to);
  if (!outputWords) return checks;
  checks.words = totalWords(outputWords);
  if (options?.pages) return checks;
  const sourceWords = wordsOfBytes(source, from);
  const recall = sourceWords && wordsKept(sourceWords, outputWords);
  if (recall !== undefined) checks.words_kept = round(recall);
  return checks;
}
