import { createDecipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNING_SECRET_ENV } from '../../src/server/access/secrets.js';
import { DATABASE_FILE } from '../../src/store/sqlite-db.js';
import {
  filePart,
  type Json,
  metaPart,
  post,
  removeDir,
  startChildWorker,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from '../server/helpers.js';
import { hasPdfTools, samplePdfs } from './pdf-samples.js';

/**
 * Passwords at rest (issue class 5): what someone who copies the database file alone (a backup,
 * a volume snapshot, a stolen disk) learns of the passwords requests were given. Each case feeds
 * passwords through a started server and reads the file as that person would: every request's
 * options, and every key the file holds beside them.
 */

let dir: string;
let pdf: Buffer;
/** The same PDF locked with the password `secret`. */
let locked: Buffer;
beforeAll(async () => {
  dir = tempDir();
  if (hasPdfTools) ({ pdf, locked } = await samplePdfs(dir, ['Payroll page one']));
});
afterAll(() => removeDir(dir));

/** What the database file alone gives: each request's options, every secret kept, and its raw bytes. */
function readDatabase(dataDir: string) {
  const file = join(dataDir, DATABASE_FILE);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const requests = db.prepare('SELECT id, status, options FROM requests').all() as {
      id: string;
      status: string;
      options: string | null;
    }[];
    const secrets = (db.prepare('SELECT value FROM secrets').all() as { value: Buffer }[]).map(
      (r) => r.value,
    );
    const bytes = Buffer.concat(
      ['', '-wal'].filter((s) => existsSync(file + s)).map((s) => readFileSync(file + s)),
    );
    return { requests, secrets, bytes };
  } finally {
    db.close();
  }
}

/** The sealed values (`sealed:v1:` + base64url of iv, tag, body) among a request's options. */
function sealedValues(options: string | null): string[] {
  const values = Object.values(options ? (JSON.parse(options) as Record<string, unknown>) : {});
  return values.filter((v): v is string => typeof v === 'string' && v.startsWith('sealed:'));
}

/** Tries to open a sealed value with `material`, as a key and as the seed of one (HKDF-SHA256). */
function opens(sealed: string, material: Buffer): string | undefined {
  const raw = Buffer.from(sealed.slice(sealed.indexOf(':', 7) + 1), 'base64url');
  const keys = [
    material,
    Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), 'fileconv option secrets', 32)),
  ];
  for (const key of keys.filter((k) => k.length === 32)) {
    try {
      const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
    } catch {}
  }
  return undefined;
}

async function convert(url: string, options: Record<string, string>, bytes = pdf): Promise<string> {
  const res = await post(`${url}/api/public/convert`, [
    metaPart({ conversion: 'pdf-pdf', options }),
    filePart('payroll.pdf', bytes),
  ]);
  expect(res.status, res.text).toBe(202);
  return res.json.request_id as string;
}

describe('passwords at rest', () => {
  it.skipIf(!hasPdfTools)(
    'a queued password cannot be opened from the database file, and is gone once its request fails',
    async () => {
      const marker = `pw-${randomUUID()}`;
      // An API node alone: the request waits in the database, as it would for a busy worker.
      let server: TestServer | undefined = await startTestServer({ worker: 'false' });
      const { dataDir } = server;
      try {
        const id = await convert(server.url, { user_password: marker, owner_password: `${marker}-owner` });
        const queued = readDatabase(dataDir);
        const sealed = sealedValues(queued.requests.find((r) => r.id === id)!.options);
        expect(sealed).toHaveLength(2);
        expect(queued.bytes.includes(Buffer.from(marker))).toBe(false);
        for (const value of sealed)
          for (const key of queued.secrets) expect(opens(value, key)).toBeUndefined();
        await server.stop();

        // Another process (a restart) was never given the password: the request fails, asking for it again.
        server = await startTestServer({ dataDir });
        const done = await waitDone(server.url, id);
        expect(done.status).toBe('failed');
        expect(done.error.message).toMatch(/submit it again/);
        const ended = readDatabase(dataDir).requests.find((r) => r.id === id)!;
        expect(sealedValues(ended.options)).toEqual([]);
      } finally {
        await server?.stop();
        removeDir(dataDir);
      }
    },
    // Servers start and probe their engines: slow on a busy machine.
    240_000,
  );

  it.skipIf(!hasPdfTools)(
    'a password is gone from the records when its request ends, succeeded or failed (a wrong one too)',
    async () => {
      const marker = `pw-${randomUUID()}`;
      const server = await startTestServer();
      try {
        const protect = await convert(server.url, { user_password: marker });
        const wrong = await convert(server.url, { password: `${marker}-wrong` }, locked);
        const answers: Json[] = [await waitDone(server.url, protect), await waitDone(server.url, wrong)];
        expect(answers.map((a) => a.status)).toEqual(['succeeded', 'failed']);
        expect(answers[1].error.code).toBe('ENCRYPTED_DOCUMENT');
        const { requests, bytes } = readDatabase(server.dataDir);
        for (const id of [protect, wrong]) {
          const row = requests.find((r) => r.id === id)!;
          expect(row.status).not.toBe('running');
          expect(row.options ?? '').not.toMatch(/sealed:|pw-/);
        }
        expect(bytes.includes(Buffer.from(marker))).toBe(false);
      } finally {
        await server.stop();
        removeDir(server.dataDir);
      }
    },
    // Servers start and probe their engines: slow on a busy machine.
    240_000,
  );

  it.skipIf(!hasPdfTools)(
    'with the deployment secret, a worker in another process opens what an API node sealed, and the file alone still cannot',
    async () => {
      const secret = randomBytes(32).toString('hex');
      const before = process.env[SIGNING_SECRET_ENV];
      process.env[SIGNING_SECRET_ENV] = secret;
      const server = await startTestServer({ worker: 'false' });
      let worker: Awaited<ReturnType<typeof startChildWorker>> | undefined;
      try {
        const marker = `pw-${randomUUID()}`;
        const id = await convert(server.url, { user_password: marker });
        const queued = readDatabase(server.dataDir);
        const [sealed] = sealedValues(queued.requests.find((r) => r.id === id)!.options);
        for (const key of queued.secrets) expect(opens(sealed!, key)).toBeUndefined();
        worker = await startChildWorker(server.dataDir, [], { [SIGNING_SECRET_ENV]: secret });
        const done = await waitDone(server.url, id);
        expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
        const ended = readDatabase(server.dataDir).requests.find((r) => r.id === id)!;
        expect(sealedValues(ended.options)).toEqual([]);
      } finally {
        worker?.child.kill('SIGTERM');
        await worker?.exited;
        await server.stop();
        removeDir(server.dataDir);
        if (before === undefined) delete process.env[SIGNING_SECRET_ENV];
        else process.env[SIGNING_SECRET_ENV] = before;
      }
    },
    // Servers start and probe their engines: slow on a busy machine.
    240_000,
  );
});
