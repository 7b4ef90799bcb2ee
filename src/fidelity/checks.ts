import { countFile } from './counts.js';
import type { ArtifactChecks } from './describe.js';
import { type FidelityInput, observe } from './measure.js';
import { totalWords, wordsKept } from './text.js';
import { withTools } from './tools.js';

export type { ArtifactChecks } from './describe.js';

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * What each output kept, computed cheaply from the outputs (and the source, for the words): one
 * checks object per output, in order. A single output gets the word recall against the source;
 * page images each get their own size. Never throws: a measure that fails is left out.
 */
export async function artifactChecks(input: FidelityInput): Promise<ArtifactChecks[]> {
  try {
    return await withTools(input.signal, async (run) => {
      if (input.outputs.length > 1) {
        return Promise.all(
          input.outputs.map(async (file) => ({ ...(await countFile(file, input.to, run)) })),
        );
      }
      const seen = await observe(input, run);
      const checks: ArtifactChecks = { ...seen.output };
      if (seen.outputWords) checks.words = totalWords(seen.outputWords);
      const recall = seen.sourceWords && seen.outputWords && wordsKept(seen.sourceWords, seen.outputWords);
      if (recall !== undefined && !input.options?.pages) checks.words_kept = round(recall);
      return [checks];
    });
  } catch {
    return input.outputs.map(() => ({}));
  }
}
