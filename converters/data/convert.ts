import { readFile, rm, stat } from 'node:fs/promises';
import yauzl from 'yauzl';
import { FileconvError } from '../../src/errors/index.js';
import { inMemoryChecks } from '../../src/fidelity/in-memory.js';
import { checkNesting, withinNesting } from './nesting.js';
import { decodeText, parseText } from './parse.js';
import { serializeData, writeData } from './serialize.js';
import { convertDatabase } from './sqlite.js';
import type { DataBytesTask, DataTask } from './tasks.js';
import { readWorkbook } from './workbook.js';
import { inReadingOrder } from './xlsx-order.js';

/** Parsed in memory, so inputs are bounded well below what would strain the process. */
export const MAX_INPUT_BYTES = 50 * 1024 * 1024;
/** An xlsx is a zip; its parts together may not unpack past this (zip bombs). */
export const MAX_XLSX_UNPACKED_BYTES = 200 * 1024 * 1024;

const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** Refuses encrypted workbooks and zip bombs before the whole workbook is unpacked in memory. */
async function checkWorkbook(path: string): Promise<void> {
  const head = await readFile(path);
  if (head.subarray(0, 8).equals(CFB_MAGIC)) {
    // A password-protected OOXML file is a CFB container holding an EncryptedPackage stream.
    if (head.includes(Buffer.from('EncryptedPackage', 'utf16le')))
      throw new FileconvError('ENCRYPTED_DOCUMENT');
    throw new FileconvError(
      'MALFORMED_DOCUMENT',
      'The file is an old binary Office file, not an xlsx workbook.',
    );
  }
  const total = await new Promise<number>((resolve, reject) => {
    yauzl.fromBuffer(head, { lazyEntries: true }, (err, zip) => {
      if (err || !zip)
        return reject(
          new FileconvError('MALFORMED_DOCUMENT', 'The file is not an xlsx workbook (not a zip).'),
        );
      let sum = 0;
      zip.on('entry', (entry: yauzl.Entry) => {
        sum += entry.uncompressedSize;
        zip.readEntry();
      });
      zip.on('end', () => resolve(sum));
      zip.on('error', () =>
        reject(new FileconvError('MALFORMED_DOCUMENT', 'The xlsx zip structure is damaged.')),
      );
      zip.readEntry();
    });
  });
  if (total > MAX_XLSX_UNPACKED_BYTES) {
    throw new FileconvError(
      'CONVERT_FAILED',
      'The workbook unpacks to more data than the data engine accepts.',
    );
  }
}

/**
 * One data conversion, start to end: what a pool worker runs (converters/data/worker.ts).
 * `maxOutputBytes` is the engine output cap, passed in because a worker's environment is a copy.
 */
export async function convertData({
  from,
  to,
  input,
  output,
  maxOutputBytes,
  sheet,
}: DataTask): Promise<{ note?: string; files?: string[] }> {
  if (from === 'sqlite') return convertDatabase(input, to, output, maxOutputBytes);
  const { size } = await stat(input);
  if (size > MAX_INPUT_BYTES) {
    throw new FileconvError(
      'CONVERT_FAILED',
      `The file is larger than the ${MAX_INPUT_BYTES / 1024 / 1024} MB the data engine reads in memory.`,
    );
  }
  let value: unknown;
  let note: string | undefined;
  let columns: string[] | undefined;
  if (from === 'xlsx') {
    await checkWorkbook(input);
    const copy = `${output}.in-order.xlsx`;
    const readable = await inReadingOrder(input, copy);
    const {
      records,
      columns: names,
      sheet: chosen,
    } = await readWorkbook(readable, sheet).finally(() => rm(copy, { force: true }));
    columns = names;
    const why = sheet !== undefined ? 'as asked' : 'the first sheet with data';
    note = `sheet ${chosen.position} of ${chosen.of}, "${chosen.name}" (${why})`;
    value = records;
  } else {
    const text = decodeText(await readFile(input), from.toUpperCase());
    value = withinNesting(() => parseText(from, text));
    checkNesting(value);
  }
  await withinNesting(() => writeData(to, value, output, maxOutputBytes, columns));
  return { note };
}

/**
 * One text-to-text data conversion on bytes (no xlsx on either side): the output's bytes and
 * its checks, measured here on the worker thread rather than from files on the main thread.
 */
export function convertDataBytes({ from, to, input, maxOutputBytes, checksMaxBytes }: DataBytesTask) {
  if (input.byteLength > MAX_INPUT_BYTES) {
    throw new FileconvError(
      'CONVERT_FAILED',
      `The file is larger than the ${MAX_INPUT_BYTES / 1024 / 1024} MB the data engine reads in memory.`,
    );
  }
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const text = decodeText(bytes, from.toUpperCase());
  const value = withinNesting(() => parseText(from, text));
  checkNesting(value);
  const output = Buffer.from(withinNesting(() => serializeData(to, value, maxOutputBytes)));
  const checks = output.byteLength <= checksMaxBytes ? inMemoryChecks(from, to, input, output) : undefined;
  return { output, checks };
}
