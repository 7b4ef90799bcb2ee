/**
 * Both sources of the real-world corpus (docs/corpus.md): files Debian's binary packages ship
 * (manifest.json, fetch.ts) and files from format libraries' own test suites in Debian's source
 * packages (upstream.json, upstream.ts). Each file is tagged with its source, since the figures
 * and thresholds are per source.
 *
 *   npx tsx test/corpus/sources.ts    fetch and verify both
 */
import { fileURLToPath } from 'node:url';
import { type CorpusFile, cacheDir, fetchCorpus } from './fetch.js';
import { fetchUpstream } from './upstream.js';

export const SOURCES = ['debian', 'upstream'] as const;
export type SourceName = (typeof SOURCES)[number];

export interface SourcedFile extends CorpusFile {
  source: SourceName;
  /** Encrypted as shipped (upstream notes): refused with ENCRYPTED_DOCUMENT without a password. */
  encrypted?: boolean;
  tracks?: 'audio-only' | 'video-only';
}

export async function fetchSources(log: (line: string) => void = () => {}): Promise<SourcedFile[]> {
  const debian = (await fetchCorpus(log)).map((f) => ({ ...f, source: 'debian' as const }));
  const upstream = (await fetchUpstream(log)).map((f) => ({ ...f, source: 'upstream' as const }));
  return [...debian, ...upstream];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  fetchSources(console.log).then(
    (files) => {
      const count = (s: SourceName) => files.filter((f) => f.source === s).length;
      console.log(
        `${files.length} corpus files verified in ${cacheDir()} (debian ${count('debian')}, upstream ${count('upstream')}) in ${Math.round((Date.now() - started) / 1000)} s`,
      );
    },
    (e: Error) => {
      console.error(e.message);
      process.exit(1);
    },
  );
}
