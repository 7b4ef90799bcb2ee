/** Calls a converter's run() directly, as the baseline the server's overhead is measured against. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Converter } from '../../src/engine/contract.js';
import { loadConverters } from '../../src/engine/registry.js';

export async function converter(name: string): Promise<Converter> {
  const found = (await loadConverters()).find((c) => c.name === name);
  if (!found) throw new Error(`no converter named ${name}`);
  return found;
}

/** One conversion by `engine` from `from` to `to`, in a scratch folder under `dir` removed after. */
export async function runDirect(
  engine: Converter,
  from: string,
  to: string,
  input: string,
  dir: string,
): Promise<void> {
  const edge = engine.edges.find((e) => e.from === from && e.to === to);
  if (!edge) throw new Error(`${engine.name} has no ${from}->${to} edge`);
  const tryDir = mkdtempSync(join(dir, 'direct-'));
  const outDir = join(tryDir, 'out');
  const workDir = join(tryDir, 'work');
  mkdirSync(outDir);
  mkdirSync(workDir);
  try {
    const result = await engine.run(
      { edge, input, outDir, options: {} },
      {
        signal: new AbortController().signal,
        timeoutMs: 120_000,
        workDir,
        progress: () => {},
        log: () => {},
      },
    );
    if (result.files.length === 0) throw new Error(`${engine.name} wrote no output`);
  } finally {
    rmSync(tryDir, { recursive: true, force: true });
  }
}
