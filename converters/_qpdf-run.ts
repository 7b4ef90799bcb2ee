import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepContext } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';
import { EngineProcessError, runProcess } from '../src/run/process.js';

/**
 * How qpdf is run. Its arguments go in an argument file (`@file`, one per line) in the step's own
 * folder, and the passwords in a qpdf job JSON file beside it (`--job-json-file`): in JSON a
 * password is a string value, never an argument, so one such as `--`, `-o` or `--print=none` is
 * read as the password it is, not as an option. Neither file is on a command line, where any user
 * of the machine could read it; both are removed when the run ends.
 */

/** The passwords of one run: the one that opens the input, the ones that protect the output. */
export interface QpdfSecrets {
  /** Opens a protected input. */
  password?: string;
  /** Protects the output with AES-256, with these permissions. */
  encrypt?: {
    user: string;
    owner: string;
    print: boolean;
    copy: boolean;
    modify: boolean;
  };
}

/** qpdf's exit code when it wrote the output but warned about damage it repaired. */
const WARNINGS_EXIT = 3;

/** The job JSON of the passwords, in qpdf's own vocabulary (`qpdf --job-json-help`). */
function secretsJson(s: QpdfSecrets): string | undefined {
  const job: Record<string, unknown> = {};
  if (s.password !== undefined) job.password = s.password;
  if (s.encrypt) {
    const e = s.encrypt;
    job.encrypt = {
      userPassword: e.user,
      ownerPassword: e.owner,
      '256bit': {
        print: e.print ? 'full' : 'none',
        extract: e.copy ? 'y' : 'n',
        modify: e.modify ? 'all' : 'none',
        annotate: e.modify ? 'y' : 'n',
      },
    };
  }
  return Object.keys(job).length > 0 ? JSON.stringify(job) : undefined;
}

/** Exit code 2 or a password complaint: the file is damaged, or the password is missing or wrong. */
function classify(e: EngineProcessError): FileconvError {
  if (/invalid password|password.*(incorrect|required)/i.test(e.output)) {
    return new FileconvError('ENCRYPTED_DOCUMENT', undefined, { cause: e });
  }
  return new FileconvError('MALFORMED_DOCUMENT', 'qpdf could not read the PDF.', { cause: e });
}

/** Runs qpdf with its arguments and passwords in files of the step's own folder; returns stdout. */
export async function runQpdf(
  qpdf: string,
  args: readonly string[],
  ctx: StepContext,
  secrets: QpdfSecrets = {},
): Promise<string> {
  // One pair of files per run: a merge reads several inputs at once in the same folder.
  const id = crypto.randomUUID();
  const argsFile = join(ctx.workDir, `qpdf-arguments-${id}`);
  const jobFile = join(ctx.workDir, `qpdf-passwords-${id}.json`);
  const job = secretsJson(secrets);
  const lines = job === undefined ? args : [`--job-json-file=${jobFile}`, ...args];
  try {
    if (job !== undefined) await writeFile(jobFile, job, { mode: 0o600 });
    await writeFile(argsFile, `${lines.join('\n')}\n`, { mode: 0o600 });
    return (await runProcess(qpdf, [`@${argsFile}`], ctx)).stdout;
  } catch (e) {
    if (!(e instanceof EngineProcessError)) throw e;
    if (e.exitCode !== WARNINGS_EXIT) throw classify(e);
    ctx.log('qpdf repaired damage in the PDF while writing it');
    return e.stdout;
  } finally {
    await Promise.all([rm(argsFile, { force: true }), rm(jobFile, { force: true })]);
  }
}

/** The page count of a PDF (opened with its password). */
export async function qpdfPageCount(
  qpdf: string,
  input: string,
  ctx: StepContext,
  password?: string,
): Promise<number> {
  return Number((await runQpdf(qpdf, ['--show-npages', input], ctx, { password })).trim());
}

/**
 * Refuses a `pages` option that names a page the document does not have, with the request's
 * code: the file is fine, the request is not.
 */
export function checkPagesExist(pages: string | undefined, count: number): void {
  if (!pages) return;
  for (const part of pages.replaceAll(' ', '').split(',')) {
    const numbers = part.split('-').map(Number);
    if (numbers.some((n) => n < 1 || n > count))
      throw new FileconvError(
        'INVALID_REQUEST',
        `option pages ${part}: the document has ${count} page${count === 1 ? '' : 's'}`,
      );
  }
}
