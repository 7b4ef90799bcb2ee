import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineConfinement, scratchFolderMode } from '../../src/run/confine.js';
import { DATABASE_FILE } from '../../src/store/sqlite-db.js';
import {
  filePart,
  get,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from '../server/helpers.js';
import { hasPdfTools, samplePdfs } from './pdf-samples.js';

/**
 * Files readable by every local user (issue class 7): what a started server leaves on disk, by
 * stat(): the data folder and blobs/ 0700, uploads and results 0600 and the server's own, even
 * the results an engine made as its own user.
 */

const uid = process.getuid?.();
/** Engines run as a user of their own here (a root server): their outputs must be taken back. */
const engineUser = engineConfinement().user;

let dir: string;
let pdf: Buffer;
beforeAll(async () => {
  dir = tempDir();
  if (hasPdfTools) ({ pdf } = await samplePdfs(dir, ['Ledger page one', 'Ledger page two']));
});
afterAll(() => removeDir(dir));

const mode = (path: string) => statSync(path).mode & 0o777;

/** Every folder and file under `root`, with its mode and owner. */
function tree(root: string): { path: string; dir: boolean; mode: number; uid: number }[] {
  return readdirSync(root, { recursive: true, withFileTypes: true }).map((e) => {
    const path = join(e.parentPath, e.name);
    const s = statSync(path);
    return { path, dir: e.isDirectory(), mode: s.mode & 0o777, uid: s.uid };
  });
}

function expectPrivate(root: string): void {
  const entries = tree(root);
  expect(entries.length).toBeGreaterThan(0);
  for (const e of entries) {
    expect({ path: e.path, mode: e.mode.toString(8) }).toEqual({
      path: e.path,
      mode: e.dir ? '700' : '600',
    });
    expect({ path: e.path, uid: e.uid }).toEqual({ path: e.path, uid });
  }
}

describe('files at rest', () => {
  it.skipIf(!hasPdfTools)(
    'keeps the data folder, blobs/, uploads and engine-made results to the server user alone',
    async () => {
      const dataDir = join(dir, 'data');
      let server: TestServer | undefined = await startTestServer({ dataDir, worker: 'false' });
      try {
        // The data folder the server made: engines pass through it only where they must (confine.ts).
        expect(mode(dataDir).toString(8)).toBe(scratchFolderMode().toString(8));
        expect(mode(join(dataDir, 'blobs'))).toBe(0o700);
        expect(mode(join(dataDir, DATABASE_FILE))).toBe(0o600);
        const res = await post(`${server.url}/api/public/convert`, [
          metaPart({ conversion: 'pdf-pdf', options: { rotate: 90 } }),
          filePart('ledger.pdf', pdf),
        ]);
        expect(res.status, res.text).toBe(202);
        const id = res.json.request_id as string;
        // The upload, waiting for a worker.
        expectPrivate(join(dataDir, 'blobs'));
        await server.stop();

        // A data folder made before, open to everyone, is narrowed when the server starts.
        chmodSync(dataDir, 0o755);
        chmodSync(join(dataDir, 'blobs'), 0o755);
        server = await startTestServer({ dataDir });
        expect(mode(dataDir).toString(8)).toBe(scratchFolderMode().toString(8));
        const done = await waitDone(server.url, id);
        expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
        // qpdf wrote the result in its job folder, as the engine user where there is one.
        expectPrivate(join(dataDir, 'blobs'));
        // And it is still served.
        const link = await get(`${server.url}/api/public/requests/${id}/artifacts/pdf`);
        const file = await get(new URL(String(link.headers.location), server.url).href);
        expect(file.status).toBe(200);
        expect(file.text.startsWith('%PDF-')).toBe(true);
      } finally {
        await server?.stop();
      }
    },
    // Servers start and probe their engines: slow on a busy machine.
    240_000,
  );

  it.skipIf(!hasPdfTools || !engineUser)(
    'engines, as their own user, still read their inputs, and every page they made is taken back',
    async () => {
      const dataDir = join(dir, 'data-engine');
      mkdirSync(dataDir, { mode: 0o700 });
      const server = await startTestServer({ dataDir });
      try {
        const res = await post(`${server.url}/api/public/convert`, [
          metaPart({ conversion: 'pdf-png' }),
          filePart('ledger.pdf', pdf),
        ]);
        expect(res.status, res.text).toBe(202);
        const done = await waitDone(server.url, res.json.request_id as string);
        expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
        expectPrivate(join(dataDir, 'blobs'));
      } finally {
        await server.stop();
      }
    },
    // Servers start and probe their engines: slow on a busy machine.
    240_000,
  );
});
