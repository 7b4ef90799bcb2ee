import type { Command } from 'commander';
import { type DetectReport, detect } from '../detect/index.js';
import { DETECT_EXIT_CODE, EXIT } from '../errors/exit-codes.js';
import { isFileconvError } from '../errors/index.js';
import { resolveFormat } from '../formats/index.js';
import { shownText } from '../intake/untrusted-text.js';
import { mapLimit } from '../run/concurrency.js';
import { addRemoteOptions, type RemoteFlags, remoteClient, remoteOf } from './remote.js';

/** Files detected at once; detection is bounded I/O, so a few in flight keep the disk busy. */
const PARALLEL = 8;
/** Files sent to a server at once. */
const REMOTE_PARALLEL = 2;

interface Row extends DetectReport {
  file: string;
}

interface DetectFlags extends RemoteFlags {
  json?: boolean;
  declared?: string;
  strict?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('detect')
    .description('Identify files by their content and compare with the format their name declares.')
    .argument('<file...>', 'files to identify')
    .option('--json', 'print one JSON object a line instead of a table')
    .option('--declared <format>', 'the format the files are declared as (instead of their extensions)')
    .option(
      '--strict',
      `exit ${DETECT_EXIT_CODE.FORMAT_MISMATCH} when a detected format differs from the declared one`,
    );
  addRemoteOptions(cmd)
    .addHelpText(
      'after',
      `\nExit codes: 0 ok, ${DETECT_EXIT_CODE.INVALID_REQUEST} bad option, ${DETECT_EXIT_CODE.FILE_NOT_FOUND} a file could not be read, ` +
        `${DETECT_EXIT_CODE.FORMAT_MISMATCH} a mismatch under --strict.`,
    )
    .action(async (files: string[], flags: DetectFlags) => {
      process.exitCode = await runDetect(files, flags);
    });
}

async function runDetect(files: string[], flags: DetectFlags): Promise<number> {
  if (flags.declared !== undefined && !resolveFormat(flags.declared)) {
    process.stderr.write(`fileconv detect: unknown format "${flags.declared}" for --declared\n`);
    return DETECT_EXIT_CODE.INVALID_REQUEST;
  }
  let detectOne = (file: string): Promise<DetectReport> => detect(file, { declared: flags.declared });
  let parallel = PARALLEL;
  let remote: ReturnType<typeof remoteOf>;
  try {
    remote = remoteOf(flags);
    if (remote) {
      const client = await remoteClient(remote);
      detectOne = (file) => client.detect(file, { declared: flags.declared }) as Promise<DetectReport>;
      // Each file is a write the server counts (30 a minute by default): a few at a time.
      parallel = REMOTE_PARALLEL;
    }
  } catch (e) {
    process.stderr.write(`fileconv detect: ${shownText((e as Error).message)}\n`);
    return DETECT_EXIT_CODE.INVALID_REQUEST;
  }
  let refusal: Error | undefined;
  const results = await mapLimit(files, parallel, async (file): Promise<Row | Error> => {
    if (refusal) return refusal;
    try {
      return { file, ...(await detectOne(file)) };
    } catch (e) {
      if (isFileconvError(e) && e.code === 'FILE_NOT_FOUND') return e;
      // The server refused (a bad key, a used-up quota) or could not be reached: no file is to blame.
      if (remote && isFileconvError(e)) {
        refusal ??= e;
        return refusal;
      }
      throw e;
    }
  });
  if (refusal) {
    process.stderr.write(`fileconv detect: ${shownText(refusal.message)}\n`);
    return DETECT_EXIT_CODE.INVALID_REQUEST;
  }
  const rows: Row[] = [];
  results.forEach((r, i) => {
    if (r instanceof Error) process.stderr.write(`fileconv detect: cannot read ${files[i]}\n`);
    else rows.push(r);
  });
  // One write: a write per row is a system call per file.
  if (flags.json) {
    if (rows.length > 0) process.stdout.write(rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
  } else if (rows.length > 0) {
    process.stdout.write(renderTable(rows));
  }
  if (rows.length < files.length) return DETECT_EXIT_CODE.FILE_NOT_FOUND;
  if (flags.strict && rows.some((r) => !r.match)) return DETECT_EXIT_CODE.FORMAT_MISMATCH;
  return EXIT.OK;
}

const COLUMNS: Array<[title: string, cell: (r: Row) => string]> = [
  ['FILE', (r) => r.file],
  ['DECLARED', (r) => r.declared],
  [
    'DETECTED',
    (r) => {
      // "encrypted OOXML" already says it is encrypted
      const notes = [r.version, r.encrypted && !r.version?.includes('encrypted') ? 'encrypted' : undefined];
      const said = notes.filter(Boolean).join(', ');
      return said ? `${r.detected} (${said})` : r.detected;
    },
  ],
  ['MATCH', (r) => (r.match ? 'yes' : 'NO')],
  ['MIME', (r) => r.mime],
  ['CONFIDENCE', (r) => r.confidence.toFixed(2)],
];

export function renderTable(rows: Row[]): string {
  // File names are shown as they are, but for characters that would act on the terminal.
  const cells = [
    COLUMNS.map(([title]) => title),
    ...rows.map((r) => COLUMNS.map(([, cell]) => shownText(cell(r)))),
  ];
  const widths = COLUMNS.map((_, c) => Math.max(...cells.map((line) => line[c]!.length)));
  return cells
    .map(
      (line) =>
        `${line
          .map((v, c) => v.padEnd(widths[c]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}
