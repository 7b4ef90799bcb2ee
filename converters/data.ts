import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import yauzl from 'yauzl';
import { defineConverter, edgesBetween } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';
import { extensionOf, type FormatId } from '../src/formats/index.js';
import { decodeText, parseText, readWorkbook } from './data/parse.js';
import { writeData } from './data/serialize.js';

const TREES = ['json', 'yaml', 'toml', 'xml', 'jsonl'] as const; // any shape
const TABLES = ['csv', 'tsv', 'xlsx'] as const;
const ALL: FormatId[] = [...TREES, ...TABLES];

/** Parsed in memory, so inputs are bounded well below what would strain the process. */
export const MAX_INPUT_BYTES = 50 * 1024 * 1024;
/** An xlsx is a zip; its parts together may not unpack past this (zip bombs). */
export const MAX_XLSX_UNPACKED_BYTES = 200 * 1024 * 1024;

/** Where information is dropped: spreadsheet formatting, types in text cells, nulls in TOML. */
function isLossy(from: FormatId, to: FormatId): boolean {
  if (from === 'xlsx' || to === 'xml' || to === 'toml') return true;
  const fromTable = from === 'csv' || from === 'tsv';
  return (to === 'csv' || to === 'tsv' || to === 'xlsx') && !fromTable;
}

const edges = edgesBetween(ALL, ALL, (from, to) => ({
  family: (TABLES as readonly string[]).includes(from) ? 'spreadsheet' : 'data',
  lossy: isLossy(from, to),
  cost: 1,
}));

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

/** A dependency's version from its package.json, found above its entry (not all export it). */
function libraryVersion(name: string): string {
  try {
    let dir = dirname(createRequire(import.meta.url).resolve(name));
    for (let up = dirname(dir); up !== dir; dir = up, up = dirname(dir)) {
      const pkg = join(dir, 'package.json');
      if (!existsSync(pkg)) continue;
      const json = JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string; version?: string };
      if (json.name === name && json.version) return json.version;
    }
  } catch {
    // not resolvable from here
  }
  return 'unknown';
}

export default defineConverter({
  name: 'data',
  description: 'In-process data conversion among JSON, YAML, TOML, XML, JSON Lines, CSV, TSV and XLSX',
  packages: [],
  edges,
  concurrency: 2,
  timeoutMs: 120_000,
  async probe() {
    const libs = ['yaml', 'smol-toml', 'fast-xml-parser', 'papaparse', 'exceljs'];
    return { ok: true, path: 'in-process', version: libs.map((l) => `${l} ${libraryVersion(l)}`).join(', ') };
  },
  async run({ edge, input, outDir, options }, ctx) {
    const { size } = await stat(input);
    if (size > MAX_INPUT_BYTES) {
      throw new FileconvError(
        'CONVERT_FAILED',
        `The file is larger than the ${MAX_INPUT_BYTES / 1024 / 1024} MB the data engine reads in memory.`,
      );
    }
    let value: unknown;
    if (edge.from === 'xlsx') {
      await checkWorkbook(input);
      const { records, sheet } = await readWorkbook(input, options.sheet);
      const why = options.sheet !== undefined ? 'as asked' : 'the first sheet with data';
      ctx.log(`sheet ${sheet.position} of ${sheet.of}, "${sheet.name}" (${why})`);
      value = records;
    } else {
      value = parseText(edge.from, decodeText(await readFile(input), edge.from.toUpperCase()));
    }
    ctx.progress(0.5);
    if (ctx.signal.aborted) throw new FileconvError('CONVERT_FAILED', 'The conversion was cancelled.');
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    await writeData(edge.to, value, output);
    ctx.progress(1);
    return { files: [output] };
  },
});
