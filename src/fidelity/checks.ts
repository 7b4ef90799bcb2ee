import type { ArtifactChecks } from '../engine/checks.js';
import { countFile } from './counts.js';
import { type FidelityInput, PDFS, PICTURE_TARGETS, wordsOf } from './measure.js';
import { totalWords, wordsKept } from './text.js';
import type { RunTool } from './tools.js';

export type { ArtifactChecks } from '../engine/checks.js';

const round = (n: number) => Math.round(n * 1000) / 1000;

/** The source's pictures as its target can show them (a PDF draws vector pictures as paths). */
async function sourcePictures(input: FidelityInput, run: RunTool): Promise<number | undefined> {
  if (!PICTURE_TARGETS.has(input.to) || input.options?.pages) return undefined;
  return (await countFile(input.source, input.from, run, { rasterOnly: PDFS.has(input.to) })).images;
}

/**
 * What each output kept, computed cheaply from the outputs (and the source, for the words): one
 * checks object per output, in order. A single output gets the word recall against the source;
 * page images each get their own size. Never throws: a measure that fails is left out.
 * The source is read only for the recall, so only when the output has words to compare (a JSON
 * or YAML output has none: its keys repeat per record).
 */
export async function artifactChecks(input: FidelityInput, run: RunTool): Promise<ArtifactChecks[]> {
  try {
    if (input.outputs.length > 1) {
      return await Promise.all(
        input.outputs.map(async (file) => ({ ...(await countFile(file, input.to, run)) })),
      );
    }
    const first = input.outputs[0]!;
    const [output, outputWords, sourceImages] = await Promise.all([
      countFile(first, input.to, run),
      wordsOf(first, input.to, run),
      sourcePictures(input, run),
    ]);
    const checks: ArtifactChecks = { ...output };
    if (sourceImages && output.images !== undefined) checks.source_images = sourceImages;
    if (!outputWords) return [checks];
    checks.words = totalWords(outputWords);
    if (input.options?.pages) return [checks];
    const sourceWords = await wordsOf(input.source, input.from, run);
    const recall = sourceWords && wordsKept(sourceWords, outputWords);
    if (recall !== undefined) checks.words_kept = round(recall);
    return [checks];
  } catch {
    return input.outputs.map(() => ({}));
  }
}
