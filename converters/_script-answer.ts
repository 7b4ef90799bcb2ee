import type { EngineProbe } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';
import { binaryOutput, EngineProcessError, findBinary } from '../src/run/process.js';

/*
 * The Python scripts shipped with the converters (MuPDF's page tools, the signature) answer with
 * one JSON line, and exit 3 when the request cannot be met by this document: `{code, error}`.
 */

/** A script's one JSON line (a binding may print warnings of its own around it). */
export const scriptAnswer = <T>(output: string): T => JSON.parse(/^\{.*\}$/m.exec(output)?.[0] ?? '{}') as T;

/** A script's refusal (exit 3) as the error it stands for; any other failure as it was. */
export function scriptRefusal(e: unknown, fallback: string): unknown {
  if (!(e instanceof EngineProcessError) || e.exitCode !== 3) return e;
  const { code, error } = scriptAnswer<{ error?: string; code?: string }>(e.output);
  if (code === 'ENCRYPTED_DOCUMENT' || code === 'MALFORMED_DOCUMENT')
    return new FileconvError(code, undefined, { cause: e });
  return new FileconvError('INVALID_REQUEST', error ?? fallback, { cause: e });
}

/** The system's Python first: the modules the scripts import are Debian's, which another python3 on PATH lacks. */
const PYTHONS = ['/usr/bin/python3', 'python3'];

/**
 * The first Python that runs `probe` cleanly, with the version `version` finds in what it printed.
 * binaryOutput keeps a clean answer only: after `doctor --install` adds a module, it is asked again.
 */
export async function probeScriptPython(
  probe: string,
  version: RegExp,
  missing: string,
): Promise<EngineProbe> {
  for (const name of PYTHONS) {
    const path = findBinary([name]);
    if (!path) continue;
    const r = await binaryOutput(path, ['-c', probe]);
    const found = version.exec(r.all)?.[1];
    if (r.exitCode === 0 && found) return { ok: true, path, version: found };
  }
  return { ok: false, detail: missing };
}
