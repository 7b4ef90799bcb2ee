import type { Command } from 'commander';
import { closeEngines } from '../engine/registry.js';
import { exitWithUsageCode } from './convert-io.js';
import { type ConvertFlags, runConvert } from './convert-run.js';
import { addRemoteOptions } from './remote.js';

export type { ConvertLine } from './convert-io.js';

export function register(program: Command): void {
  const cmd = program
    .command('convert')
    .description('Convert files (or http(s) URLs) to another format with the installed engines.')
    .argument('<inputs...>', 'input files or URLs; or `IN OUT` where OUT names the target by its extension')
    .option('-t, --to <format>', 'target format id, alias or extension')
    .option('-o, --output <path>', 'output file (one input) or folder')
    .option(
      '-O, --option <key=value>',
      'conversion option, repeatable; `fileconv catalog --from X --to Y` lists what a conversion takes',
      collect,
      [],
    )
    .option('--pages <ranges>', 'pages to keep or convert, like 1-3,5 (-O pages=...)')
    .option('--rotate <degrees>', 'turn PDF pages clockwise: 90, 180 or 270 (-O rotate=...)')
    .option(
      '--compress [preset]',
      'make a PDF, photo or video smaller: lossless, printer, ebook (the default) or screen',
    )
    .option('--ocr', 'read pages with OCR: to pdf, a searchable PDF (-O ocr=true)')
    .option('--lang <codes>', 'OCR languages, like eng+deu (-O lang=...)')
    .option(
      '--password <password>',
      'the password that opens a protected PDF, Office or ODF document (-O password=...)',
    )
    .option('--paper <size>', 'paper of a printed page: A4, Letter, Legal, A3... or 210x297mm (-O paper=...)')
    .option('--landscape', 'print pages landscape (-O landscape=true)')
    .option('--margin <lengths>', 'page margins, CSS order, like "10mm 15mm" (-O margin=...)')
    .option(
      '--stamp-image <file>',
      'a PNG, JPEG or SVG picture stamped on every PDF page (-O stamp_image_position=..., _width, _opacity)',
    )
    .option(
      '--sign-certificate <file>',
      'sign the PDF with this PKCS#12 file (-O sign_password=..., sign_reason, sign_location, sign_page)',
    )
    .option('--from <format>', 'source format, instead of detecting it')
    .option('--merge', 'join the inputs, in order, into one file (PDF: one bookmark per input)')
    .option('--json', 'one JSON result per input per line (also the default when stdout is not a terminal)')
    .option('--concurrency <n>', 'inputs converted at once', '2');
  addRemoteOptions(cmd)
    .addHelpText(
      'after',
      '\nSeveral inputs without --merge are converted each on its own; with --merge they become one file.\nExit codes: 0 ok, 1 conversion failed, 2 usage, 3 unsupported pair, 4 some inputs of a batch failed.',
    )
    .action(async (inputs: string[], flags: ConvertFlags) => {
      // A warm engine (the browser) holds the process open until it is closed.
      process.exitCode = await runConvert(inputs, flags, { command: 'convert' }).finally(closeEngines);
    });
  exitWithUsageCode(cmd);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
