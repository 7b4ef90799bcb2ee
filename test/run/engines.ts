import { copyFileSync, existsSync } from 'node:fs';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ConversionEdge, type Converter, defineConverter } from '../../src/engine/contract.js';
import { FileconvError } from '../../src/errors/index.js';
import { findBinary } from '../../src/run/binary.js';
import { runProcess } from '../../src/run/process.js';

/** The folder of tiny misbehaving executables the runner tests put on PATH. */
export const FIXTURE_BIN = fileURLToPath(new URL('../fixtures/bin', import.meta.url));

export function withFixtureBin(): () => void {
  const before = process.env.PATH;
  process.env.PATH = `${FIXTURE_BIN}:${before ?? ''}`;
  return () => {
    process.env.PATH = before;
  };
}

function edge(from: string, to: string, extra: Partial<ConversionEdge> = {}): ConversionEdge {
  return { from, to, family: 'text', lossy: false, cost: 5, ...extra };
}

/** Writes the input uppercased: a real, trivial transformation the tests can check. */
export function upperEngine(name: string, edges: ConversionEdge[] = [edge('txt', 'md')]): Converter {
  return defineConverter({
    name,
    description: 'uppercases text (test engine)',
    packages: [],
    edges,
    probe: async () => ({ ok: true, version: '1' }),
    run: async ({ input, outDir, edge: e }) => {
      const out = join(outDir, `out.${e.to}`);
      await writeFile(out, (await readFile(input, 'utf8')).toUpperCase());
      return { files: [out] };
    },
  });
}

/** Splits the input into one file per line ("pages"), for multi-output naming. */
export function splitEngine(name: string, from: string, to: string): Converter {
  return defineConverter({
    name,
    description: 'one file per line (test engine)',
    packages: [],
    edges: [edge(from, to, { multiOutput: true, lossy: true })],
    probe: async () => ({ ok: true, version: '1' }),
    run: async ({ input, outDir }) => {
      const lines = (await readFile(input, 'utf8')).split('\n').filter(Boolean);
      const files: string[] = [];
      for (const [i, line] of lines.entries()) {
        const f = join(outDir, `page-${i + 1}.${to}`);
        await writeFile(f, line);
        files.push(f);
      }
      return { files };
    },
  });
}

/** Fails every run with the given error, after leaving a scratch file in its workDir. */
export function failingEngine(
  name: string,
  error: () => unknown,
  edges: ConversionEdge[] = [edge('txt', 'md')],
): Converter {
  return defineConverter({
    name,
    description: 'always fails (test engine)',
    packages: [],
    edges,
    probe: async () => ({ ok: true, version: '1' }),
    run: async ({ input }, ctx) => {
      await copyFile(input, join(ctx.workDir, 'scratch'));
      throw error();
    },
  });
}

/** Runs the crashing fixture executable through runProcess. */
export function crashEngine(name: string): Converter {
  return defineConverter({
    name,
    description: 'runs a crashing binary (test engine)',
    packages: [],
    edges: [edge('txt', 'md')],
    probe: async () => ({ ok: true, version: '1' }),
    run: async (_req, ctx) => {
      const bin = findBinary(['fileconv-crash'])!;
      await runProcess(bin, [], ctx, { readable: [bin] });
      return { files: [] };
    },
  });
}

/**
 * Runs the hanging fixture executable (which records its pids in `pidFile`) through runProcess.
 * A confined engine sees only its job folder, so it records them there and they are copied out
 * while it runs.
 */
export function hangEngine(name: string, pidFile: string, timeoutMs: number): Converter {
  return defineConverter({
    name,
    description: 'runs a hanging binary (test engine)',
    packages: [],
    edges: [edge('txt', 'md')],
    timeoutMs,
    probe: async () => ({ ok: true, version: '1' }),
    run: async (_req, ctx) => {
      const bin = findBinary(['fileconv-hang'])!;
      const recorded = join(ctx.workDir, 'hang.pids');
      const copyOut = () => {
        if (existsSync(recorded)) copyFileSync(recorded, pidFile);
      };
      const poll = setInterval(copyOut, 20);
      try {
        await runProcess(bin, [recorded], ctx, { readable: [bin] });
      } finally {
        clearInterval(poll);
        copyOut();
      }
      return { files: [] };
    },
  });
}

export const detailError = (code: 'NEEDS_OCR' | 'ENCRYPTED_DOCUMENT' | 'MALFORMED_DOCUMENT') => () =>
  new FileconvError(code);
