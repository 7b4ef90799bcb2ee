import { dirname } from 'node:path';
import type { EngineProbe, StepContext } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';
import { binaryOutput, EngineProcessError, findBinary, runProcess } from '../src/run/process.js';

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

/** The Python of the signature scripts (signing, and the report's checks): pikepdf, cryptography, asn1crypto. */
export const probeSignaturePython = () =>
  probeScriptPython(
    'import pikepdf, cryptography, asn1crypto; print("pikepdf", pikepdf.__version__)',
    /pikepdf (\S+)/,
    'no Python that can import pikepdf, cryptography and asn1crypto (install python3-pikepdf python3-asn1crypto)',
  );

/**
 * Runs one of the scripts with `probe`'s Python, confined, its job (passwords and keys among it)
 * on standard input, and returns its answer; a refusal becomes the error it stands for.
 */
export async function runScript<T>(
  probe: () => Promise<EngineProbe>,
  script: string,
  job: unknown,
  ctx: StepContext,
  fallback: string,
): Promise<T> {
  const python = await probe();
  if (!python.ok || !python.path) throw new FileconvError('CONVERT_FAILED', python.detail);
  const { stdout } = await runProcess(python.path, [script], ctx, {
    readable: [dirname(script)],
    input: JSON.stringify(job),
  }).catch((e: unknown) => {
    throw scriptRefusal(e, fallback);
  });
  return scriptAnswer<T>(stdout);
}
