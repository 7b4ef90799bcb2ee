import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import { extensionOf, getFormat } from '../formats/index.js';
import type { ConversionOutputFile } from '../run/types.js';
import type { ArtifactRecord, RequestRecord } from '../store/types.js';
import type { RunRequestDeps } from './request-outcome.js';

async function fileDigest(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return { size: (await stat(path)).size, sha256: hash.digest('hex') };
}

/** One folder per attempt: two runs of one job (a worker thought dead) never overwrite each other. */
function artifactKey(r: RequestRecord, name: string, format: ConversionOutputFile['format']): string {
  return `artifacts/${r.id}/${r.attempts}/${name.replace(/[^A-Za-z0-9_-]/g, '_')}.${extensionOf(format)}`;
}

function artifactRecord(
  r: RequestRecord,
  file: Omit<ConversionOutputFile, 'path'>,
  stored: { blobKey: string; size: number; sha256: string; filename: string; expiresAt: number },
): ArtifactRecord {
  return {
    requestId: r.id,
    name: file.name,
    format: file.format,
    mime: getFormat(file.format)?.mime ?? 'application/octet-stream',
    ...stored,
    expired: false,
    ...(file.checks ? { checks: file.checks } : {}),
  };
}

/** A conversion's output files as artifacts (several also zipped together), stored as blobs. */
export async function storeArtifacts(
  deps: RunRequestDeps,
  r: RequestRecord,
  files: readonly ConversionOutputFile[],
  outDir: string,
  base: string,
): Promise<ArtifactRecord[]> {
  const expiresAt = Date.now() + deps.retentionMs;
  const entries: (ConversionOutputFile & { filename: string })[] = files.map((f, i) => ({
    ...f,
    filename:
      files.length === 1 ? `${base}.${extensionOf(f.format)}` : `${base}-${i + 1}.${extensionOf(f.format)}`,
  }));
  if (files.length > 1) {
    const zipPath = join(outDir, 'all.zip');
    await deps.engine.zip(
      entries.map((e) => ({ path: e.path, name: e.filename })),
      zipPath,
    );
    entries.push({ name: 'zip', path: zipPath, format: 'zip', filename: `${base}.zip` });
  }
  const artifacts: ArtifactRecord[] = [];
  for (const e of entries) {
    const { size, sha256 } = await fileDigest(e.path);
    const blobKey = artifactKey(r, e.name, e.format);
    await deps.blobs.putFile(blobKey, e.path);
    artifacts.push(artifactRecord(r, e, { blobKey, size, sha256, filename: e.filename, expiresAt }));
  }
  return artifacts;
}

/** The one output of a conversion done in memory, written straight to the blob store. */
export async function storeArtifactBytes(
  deps: RunRequestDeps,
  r: RequestRecord,
  output: Omit<ConversionOutputFile, 'path'> & { bytes: Uint8Array },
  base: string,
): Promise<ArtifactRecord> {
  const blobKey = artifactKey(r, output.name, output.format);
  const writer = await deps.blobs.createWriter(blobKey);
  try {
    writer.stream.end(output.bytes);
    await finished(writer.stream);
    await writer.commit();
  } catch (e) {
    await writer.abort().catch(() => {});
    throw e;
  }
  return artifactRecord(r, output, {
    blobKey,
    size: output.bytes.byteLength,
    sha256: createHash('sha256').update(output.bytes).digest('hex'),
    filename: `${base}.${extensionOf(output.format)}`,
    expiresAt: Date.now() + deps.retentionMs,
  });
}
