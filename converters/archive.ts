import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { detectFile } from '../src/detect/index.js';
import { type ConversionEdge, defineConverter, edgesBetween } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';
import { extensionOf, type FormatId } from '../src/formats/index.js';
import { EngineProcessError, findBinary, probeBinary, runProcess } from '../src/run/process.js';

// Archives and compressed files to a listing of their entries (txt) and to a ZIP of them, with
// libarchive's bsdtar: it reads every one of these formats, and a ZIP is written from the entries
// as they are read, so nothing is ever extracted to disk (no path in an archive can point outside
// the job folder). A compressed file that holds no archive (`notes.txt.xz`) is one entry.

/** Archives bsdtar reads, and compressed files whose content may be an archive (`.tar.xz`). */
export const ARCHIVES: readonly FormatId[] = [
  'tar',
  '7z',
  'rar',
  'cab',
  'ar',
  'deb',
  'rpm',
  'cpio',
  'iso',
  'xar',
  'lzh',
];
export const COMPRESSED: readonly FormatId[] = ['gz', 'bz2', 'xz', 'zst', 'lz4', 'lzma', 'lz', 'z'];

const edges: ConversionEdge[] = [
  // A listing names the entries and drops their content.
  ...edgesBetween(['zip', ...ARCHIVES, ...COMPRESSED], ['txt'], { family: 'archive', lossy: true, cost: 3 }),
  ...edgesBetween([...ARCHIVES, ...COMPRESSED], ['zip'], { family: 'archive', lossy: false, cost: 4 }),
];

const BSDTAR = ['bsdtar'];
const BSDCAT = ['bsdcat'];
const SH = ['sh'];

/** bsdtar's words for a file it cannot read as an archive at all (a compressed single file). */
const NOT_AN_ARCHIVE = /Unrecognized archive format/i;

/**
 * The cause of a failed read, as the error contract names it. bsdtar reads the input and writes
 * only the listing or the ZIP (whose size cap runProcess reports itself), so what it could not do
 * is read the input: encrypted, in a method libarchive does not implement, or damaged (libarchive
 * often says only "(null)" for a cut-short 7z).
 */
function classify(e: EngineProcessError, format: FormatId): FileconvError {
  const said = e.stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300);
  if (/encrypt|passphrase|password/i.test(e.output))
    return new FileconvError('ENCRYPTED_DOCUMENT', `The ${format} archive is encrypted: ${said}`, {
      cause: e,
    });
  if (/unsupported|not supported/i.test(e.output))
    return new FileconvError('CONVERT_FAILED', `bsdtar cannot read this ${format} file: ${said}`, {
      cause: e,
    });
  return new FileconvError('MALFORMED_DOCUMENT', `bsdtar could not read the ${format} file: ${said}`, {
    cause: e,
  });
}

function binary(names: readonly string[]): string {
  const path = findBinary(names);
  if (!path) throw new FileconvError('CONVERT_FAILED', `${names[0]} (libarchive-tools) is not installed.`);
  return path;
}

/**
 * The one entry of a compressed file that holds no archive, decompressed into `dir` and named
 * `content` with the extension of what its bytes are (the compressed formats keep no name, except
 * gzip's optional one, which is not trusted as a path).
 */
async function singleEntry(input: string, dir: string, ctx: Parameters<typeof runProcess>[2]) {
  await mkdir(dir, { recursive: true });
  const raw = join(dir, 'content');
  // Through a redirect rather than a pipe into memory: the engine's file-size cap applies to the
  // decompressed bytes as they are written (a small file that inflates without end stops there).
  await runProcess(binary(SH), ['-c', 'exec "$0" -- "$1" > "$2"', binary(BSDCAT), input, raw], ctx);
  const { id } = await detectFile(raw);
  if (id === 'bin') return 'content';
  const named = `content.${extensionOf(id)}`;
  await rename(raw, join(dir, named));
  return named;
}

export default defineConverter({
  name: 'archive',
  description: 'libarchive (bsdtar): archives and compressed files to a listing and to ZIP',
  // gcab, rpm and jlha-utils write the self-test's CAB, RPM and LHA samples (src/selftest/archives.ts).
  packages: ['libarchive-tools', 'gcab', 'rpm', 'jlha-utils'],
  edges,
  concurrency: 2,
  timeoutMs: 120_000,
  probe: () => probeBinary(BSDTAR, ['--version'], /bsdtar (\S+)/),
  async run({ edge, input, outDir }, ctx) {
    const bsdtar = binary(BSDTAR);
    const output = join(outDir, `output.${extensionOf(edge.to)}`);
    try {
      try {
        if (edge.to === 'txt') {
          const { stdout } = await runProcess(bsdtar, ['-tvf', input], ctx);
          await writeFile(output, stdout);
        } else {
          await runProcess(bsdtar, ['-cf', output, '--format', 'zip', `@${input}`], ctx);
        }
      } catch (e) {
        if (
          !(
            e instanceof EngineProcessError &&
            COMPRESSED.includes(edge.from) &&
            NOT_AN_ARCHIVE.test(e.output)
          )
        )
          throw e;
        const dir = join(ctx.workDir, 'single');
        const name = await singleEntry(input, dir, ctx);
        if (edge.to === 'txt') {
          const { size } = await stat(join(dir, name));
          await writeFile(output, `${name}\t${size} bytes\n`);
        } else {
          await runProcess(bsdtar, ['-cf', output, '--format', 'zip', '-C', dir, name], ctx);
        }
      }
    } catch (e) {
      throw e instanceof EngineProcessError ? classify(e, edge.from) : e;
    }
    ctx.progress(1);
    return { files: [output] };
  },
});
