import { execFileSync, spawnSync } from 'node:child_process';
import { createCipheriv, createHash, pbkdf2Sync, randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import yazl from 'yazl';
import type { Converter, StepResult } from '../../src/engine/contract.js';
import type { ConversionOptions } from '../../src/engine/options.js';
import { stepContext, tempDir } from './step.js';

/** A folder that lives for the whole test file (inputs made in beforeAll); call the cleanup in afterAll. */
export function fileScopedDir(prefix: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every entry of a zip file, name to bytes, in archive order. */
export function zipEntries(path: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const entries = new Map<string, Buffer>();
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

export function startsWith(path: string, magic: string | Buffer): boolean {
  const want = typeof magic === 'string' ? Buffer.from(magic, 'latin1') : magic;
  return readFileSync(path).subarray(0, want.length).equals(want);
}

/** The text layer of a PDF (poppler's pdftotext). */
export function pdfText(path: string): string {
  return execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { encoding: 'utf8' });
}

export function pdfPageCount(path: string): number {
  const info = execFileSync('pdfinfo', [path], { encoding: 'utf8' });
  return Number(/Pages:\s+(\d+)/.exec(info)?.[1] ?? 0);
}

/** Processes whose command line mentions `needle` (e.g. a run's workDir), as "pid cmd" lines. */
export function processesMentioning(needle: string): string[] {
  const r = spawnSync('pgrep', ['-af', needle], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .filter((line) => !line.includes('pgrep'));
}

/**
 * Runs one declared edge of a converter with a fresh StepContext and returns the files, the
 * context, and any process still running that mentions the context's workDir.
 */
export async function convertWith(
  converter: Converter,
  from: string,
  to: string,
  input: string,
  options: ConversionOptions = {},
): Promise<StepResult & { leftover: string[] }> {
  const edge = converter.edges.find((e) => e.from === from && e.to === to);
  if (!edge) throw new Error(`${converter.name} declares no edge ${from}-${to}`);
  const ctx = stepContext();
  const outDir = tempDir('fileconv-out-');
  try {
    const result = await converter.run({ edge, input, outDir, options }, ctx);
    return { ...result, leftover: processesMentioning(ctx.workDir) };
  } catch (e) {
    const leftover = processesMentioning(ctx.workDir);
    if (leftover.length) throw new Error(`processes left behind: ${leftover.join('; ')}`);
    throw e;
  }
}

/**
 * A real password-protected ODF text document, encrypted the way ODF 1.2 says: content deflated,
 * then AES-256-CBC with a PBKDF2 key from the SHA-256 of the password.
 */
export async function encryptedOdt(path: string, password: string): Promise<void> {
  const content = Buffer.from(
    '<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:text><text:p>secret text</text:p></office:text></office:body></office:document-content>',
  );
  const deflated = deflateRawSync(content);
  const salt = randomBytes(16);
  const iv = randomBytes(16);
  const key = pbkdf2Sync(createHash('sha256').update(password).digest(), salt, 100_000, 32, 'sha1');
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const encrypted = Buffer.concat([cipher.update(deflated), cipher.final()]);
  const checksum = createHash('sha256').update(deflated.subarray(0, 1024)).digest('base64');
  const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
 <manifest:file-entry manifest:full-path="/" manifest:version="1.2" manifest:media-type="application/vnd.oasis.opendocument.text"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml" manifest:size="${content.length}">
  <manifest:encryption-data manifest:checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k" manifest:checksum="${checksum}">
   <manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc" manifest:initialisation-vector="${iv.toString('base64')}"/>
   <manifest:start-key-generation manifest:start-key-generation-name="http://www.w3.org/2000/09/xmldsig#sha256" manifest:key-size="32"/>
   <manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:key-size="32" manifest:iteration-count="100000" manifest:salt="${salt.toString('base64')}"/>
  </manifest:encryption-data>
 </manifest:file-entry>
</manifest:manifest>`;
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from('application/vnd.oasis.opendocument.text'), 'mimetype', { compress: false });
  zip.addBuffer(encrypted, 'content.xml', { compress: false });
  zip.addBuffer(Buffer.from(manifest), 'META-INF/manifest.xml');
  zip.end();
  await new Promise<void>((resolve, reject) => {
    zip.outputStream.pipe(createWriteStream(path)).on('close', resolve).on('error', reject);
  });
}

/** Awaits a promise expected to reject with a FileconvError of this code. */
export { expectCode } from './step.js';
