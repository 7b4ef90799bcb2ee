// The library's local use cases: detect and convert files in this process, and the catalog.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { type ConvertFileResult, convertFile, mergeFiles } from '../core/convert-file.js';
import { readCertificateUrl } from '../core/sign-certificate.js';
import { withStampPicture } from '../core/stamp-picture.js';
import { type DetectReport, detect as detectPath } from '../detect/index.js';
import { FileconvError } from '../errors/index.js';
import { formatFromFilename, resolveFormat } from '../formats/index.js';
import { listCatalog } from '../plan/index.js';
import type { Progress, RunEvent } from '../run/types.js';

/** A file on disk (path) or its bytes in memory. */
export type FileInput = string | Uint8Array;

export interface DetectOptions {
  /** The name the file goes by; its extension is the declared format. Default: the path's name. */
  filename?: string;
  /** An explicit declared format (id, alias or extension); wins over the name. */
  declared?: string;
}

/** What a file really is, and whether that matches what it claims to be. */
export async function detect(input: FileInput, options: DetectOptions = {}): Promise<DetectReport> {
  return withFile(input, options.filename, (path, filename) =>
    detectPath(path, { filename, declared: options.declared }),
  );
}

export interface ConvertOptions {
  /** Target format: id, alias or extension (`pdf`, `jpeg`, `.webp`). */
  to: string;
  /** Source format, instead of detecting it. */
  from?: string;
  /** The name the input goes by (for bytes, or to declare a format the path's name does not). */
  filename?: string;
  /**
   * Where the result goes: a folder (existing, or ending in `/`), or a file path whose base name the
   * outputs take (pages become `name-1.png`, `name-2.png`...). Default: next to an input path;
   * required for bytes.
   */
  output?: string;
  /** Conversion options (docs/conversions.md), validated against the planned steps. */
  options?: Record<string, unknown>;
  /**
   * A PNG, JPEG or SVG picture stamped on every page of a PDF (a path, or its bytes): the option
   * `stamp_image`, placed by `stamp_image_position`, `stamp_image_width`, `stamp_image_opacity`.
   */
  stampImage?: FileInput;
  /**
   * A PKCS#12 file (a path, or its bytes) that signs the PDF: the option `sign_certificate`, with
   * `sign_password`, `sign_reason`, `sign_location`, `sign_page` and `sign_position`.
   */
  signCertificate?: FileInput;
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  onEvent?: (event: RunEvent) => void;
}

export type ConvertResult = ConvertFileResult;

/**
 * Converts one file with the installed engines; resolves with the output paths. Several files
 * (a list of paths) are merged into one PDF, in order, with one bookmark per file (docs/operations.md).
 */
export async function convert(
  input: FileInput | readonly string[],
  options: ConvertOptions,
): Promise<ConvertResult> {
  const to = knownFormat(options.to);
  if (options.stampImage !== undefined) {
    const { stampImage, ...rest } = options;
    return convert(input, { ...rest, options: await withStampPicture(rest.options, stampImage) });
  }
  if (options.signCertificate !== undefined) {
    const { signCertificate, ...rest } = options;
    const certificate = await readCertificateUrl(signCertificate);
    return convert(input, { ...rest, options: { ...rest.options, sign_certificate: certificate } });
  }
  if (isList(input)) return mergeList(input, to, options);
  const from = options.from === undefined ? undefined : knownFormat(options.from);
  if (typeof input !== 'string' && options.output === undefined) {
    throw new FileconvError('INVALID_REQUEST', 'convert() of bytes needs an `output` path or folder.');
  }
  return withFile(input, options.filename, async (path, filename) => {
    const { outDir, baseName } = await outputPlace(
      options.output,
      typeof input === 'string' ? input : filename,
    );
    return convertFile({
      path,
      filename,
      from,
      to,
      options: options.options,
      outDir,
      baseName,
      signal: options.signal,
      onProgress: options.onProgress,
      onEvent: options.onEvent,
    });
  });
}

const isList = (input: FileInput | readonly string[]): input is readonly string[] => Array.isArray(input);

/** convert() of a list of paths: one merged file, named after the first input unless `output` says. */
async function mergeList(
  paths: readonly string[],
  to: string,
  options: ConvertOptions,
): Promise<ConvertResult> {
  if (paths.length === 1) return convert(paths[0]!, options);
  const from = options.from === undefined ? undefined : knownFormat(options.from);
  const first = paths[0] ?? 'merged';
  const { outDir, baseName } = await outputPlace(options.output, first);
  return mergeFiles({
    inputs: paths.map((path) => ({ path, filename: basename(path), from })),
    to,
    options: options.options,
    outDir,
    baseName: options.output === undefined ? `${baseName}-merged` : baseName,
    signal: options.signal,
    onProgress: options.onProgress,
    onEvent: options.onEvent,
  });
}

export interface CatalogEntry {
  key: string;
  from: string;
  to: string;
  family: string;
  lossy: boolean;
  /** Engines of each step, in order. */
  engines: string[][];
}

/** Every conversion the installed engines can do. */
export async function catalog(): Promise<CatalogEntry[]> {
  return (await listCatalog()).map((p) => ({
    key: p.key,
    from: p.from,
    to: p.to,
    family: p.family,
    lossy: p.lossy,
    engines: p.steps.map((s) => s.engines),
  }));
}

function knownFormat(name: string): string {
  const format = resolveFormat(name);
  if (!format) throw new FileconvError('INVALID_REQUEST', `Unknown format "${name}".`);
  return format.id;
}

/** Runs `use` on a path: the input's own, or a temp copy of bytes that is removed afterwards. */
async function withFile<T>(
  input: FileInput,
  filename: string | undefined,
  use: (path: string, filename: string) => Promise<T>,
): Promise<T> {
  if (typeof input === 'string') return use(input, filename ?? basename(input));
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-lib-'));
  try {
    const name = filename ? basename(filename) : 'input';
    const path = join(dir, name);
    await writeFile(path, input);
    return await use(path, name);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function outputPlace(output: string | undefined, inputName: string) {
  const stem = (name: string) => basename(name, extname(name)) || 'output';
  if (output === undefined) return { outDir: dirname(resolve(inputName)), baseName: stem(inputName) };
  const isFolder = /[\\/]$/.test(output) || (await stat(output).catch(() => undefined))?.isDirectory();
  if (isFolder) return { outDir: resolve(output), baseName: stem(inputName) };
  const name = basename(output);
  return { outDir: dirname(resolve(output)), baseName: formatFromFilename(name) ? stem(name) : name };
}
