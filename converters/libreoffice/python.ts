import { execa } from 'execa';
import { findBinary } from '../../src/run/process.js';

/**
 * The Python that can `import uno`. LibreOffice's UNO binding comes with the distribution's own
 * Python (python3-uno on Debian), so the system interpreter is asked first: another python3
 * earlier on PATH (a version manager's shim, a virtualenv) usually lacks it.
 */
const CANDIDATES = [
  '/usr/bin/python3',
  '/usr/local/bin/python3',
  '/usr/lib/libreoffice/program/python',
  'python3',
];

export type PythonProbe = { ok: true; path: string } | { ok: false; reason: string };

async function importsUno(python: string): Promise<string | undefined> {
  try {
    const r = await execa(python, ['-c', 'import uno'], {
      reject: false,
      timeout: 15_000,
      stdin: 'ignore',
      all: true,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
      extendEnv: false,
    });
    if (r.exitCode === 0) return undefined;
    return (r.all ?? '').trim().split('\n').pop() || `exit code ${r.exitCode}`;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * Finds the Python to run the bridge with. `explicit` (an option or FILECONV_UNO_PYTHON) is the
 * only candidate when given, so a wrong setting is reported instead of silently replaced.
 */
export async function findUnoPython(explicit?: string): Promise<PythonProbe> {
  const names = explicit ? [explicit] : CANDIDATES;
  const problems: string[] = [];
  for (const name of names) {
    const path = findBinary([name]);
    if (!path) {
      if (explicit) problems.push(`${name} not found`);
      continue;
    }
    const problem = await importsUno(path);
    if (!problem) return { ok: true, path };
    problems.push(`${path}: ${problem}`);
  }
  return {
    ok: false,
    reason: `no Python that can import uno (install python3-uno)${problems.length ? `: ${problems.join('; ')}` : ''}`,
  };
}
