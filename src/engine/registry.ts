import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Converter, EngineProbe } from './contract.js';
import { mergeOptionSpecs } from './options.js';
import { convertersDir, runningFromSource } from './package-files.js';

/** Where converter modules live: converters/*.ts in a source checkout, dist/converters/*.js when built. */
function converterFiles(): string[] {
  const dir = convertersDir();
  const ext = runningFromSource ? '.ts' : '.js';
  return readdirSync(dir)
    .filter((f) => f.endsWith(ext) && !f.includes('.test.') && !f.startsWith('_'))
    .sort()
    .map((f) => join(dir, f));
}

let loaded: Promise<Converter[]> | undefined;

/**
 * Every converter in converters/, discovered from the folder (no hand-kept list): each module's
 * default export. Sorted by file name, so the order is the same on every machine.
 */
export function loadConverters(): Promise<Converter[]> {
  loaded ??= Promise.all(
    converterFiles().map(async (file) => {
      const mod = (await import(pathToFileURL(file).href)) as { default?: Converter };
      if (!mod.default?.name || !Array.isArray(mod.default.edges)) {
        throw new Error(`${file} does not default-export a converter`);
      }
      return mod.default;
    }),
  ).then((converters) => {
    // Two engines naming one option must mean the same thing by it: refused at load, not at a request.
    mergeOptionSpecs(converters.map((c) => ({ owner: c.name, specs: c.options ?? {} })));
    return converters;
  });
  return loaded;
}

/** Stops the warm parts of the engines loaded so far, so a command can end (see Converter.close). */
export async function closeEngines(): Promise<void> {
  if (!loaded) return;
  const converters = await loaded.catch(() => []);
  await Promise.all(converters.map((c) => c.close?.().catch(() => undefined)));
}

export interface EngineStatus {
  converter: Converter;
  probe: EngineProbe;
}

let probed: Promise<EngineStatus[]> | undefined;

/** Every converter with its probe result; probed once per process. */
export function probeEngines(): Promise<EngineStatus[]> {
  probed ??= loadConverters().then((converters) =>
    Promise.all(
      converters.map(async (converter) => {
        try {
          return { converter, probe: await converter.probe() };
        } catch (e) {
          return { converter, probe: { ok: false, detail: (e as Error).message } };
        }
      }),
    ),
  );
  return probed;
}

/** Forget cached probes (tests that change PATH). */
export function resetEngineCache(): void {
  probed = undefined;
}
