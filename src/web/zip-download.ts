// "Download all": one ZIP made in the browser from the results' own download links. Each artifact
// is read as a stream and passed into the archive chunk by chunk (stored, not recompressed: PDFs,
// pictures and office files are compressed already), so no whole file is ever held twice.
import { Zip, ZipPassThrough } from 'fflate';

export interface ZipSource {
  /** The entry's name inside the ZIP (see entryNames). */
  name: string;
  url: string;
}

/** Names made unique the way file managers do: "a.pdf", "a (2).pdf", "a (3).pdf". */
export function entryNames(wanted: readonly string[]): string[] {
  const taken = new Set<string>();
  return wanted.map((name) => {
    let candidate = name;
    const dot = name.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${stem} (${n})${ext}`;
    taken.add(candidate.toLowerCase());
    return candidate;
  });
}

async function addEntry(zip: Zip, source: ZipSource): Promise<void> {
  const response = await fetch(source.url);
  if (!response.ok || !response.body)
    throw new Error(`${source.name} could not be downloaded (HTTP ${response.status}).`);
  const entry = new ZipPassThrough(source.name);
  zip.add(entry);
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    entry.push(value, false);
  }
  entry.push(new Uint8Array(0), true);
}

/** Builds the ZIP of the sources, in order; `progress` is told how many entries are in. */
export async function buildZip(
  sources: readonly ZipSource[],
  progress: (done: number) => void,
): Promise<Blob> {
  const chunks: Uint8Array[] = [];
  let failed: Error | null = null;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const zip = new Zip((error, chunk, final) => {
    if (error) failed = error;
    else chunks.push(chunk);
    if (error || final) finish();
  });
  try {
    for (const [i, source] of sources.entries()) {
      await addEntry(zip, source);
      progress(i + 1);
    }
  } catch (error) {
    zip.terminate();
    throw error;
  }
  zip.end();
  await finished;
  if (failed) throw failed;
  return new Blob(chunks as BlobPart[], { type: 'application/zip' });
}

/** Hands a blob to the browser as a download, then lets its memory go. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
