import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresRecords } from '../../src/store/postgres-records.js';
import { postgresDialect, schemaVersion, sqliteDialect } from '../../src/store/sql/dialect.js';
import { MIGRATIONS } from '../../src/store/sql/migrations.js';
import { openSqliteRecords } from '../../src/store/sqlite-records.js';
import type { Records } from '../../src/store/types.js';
import { POSTGRES_MISSING, postgresBin, startPostgres, type TestPostgres } from '../support/postgres.js';
import { LEGACY_POSTGRES_MIGRATIONS, LEGACY_SQLITE_MIGRATIONS } from './fixtures/legacy-schema.js';

/**
 * A database made and filled by the earlier per-database schema (the fixture's SQL, and rows as
 * its stores wrote them) opens with the one store of today: it reads what was there, writes on,
 * and is not migrated again.
 */

const NOW = Date.parse('2026-03-10T12:00:00Z');
const PROGRESS = '{"percent":40,"stage":"converting","step":1,"steps":2}';

/** The rows the earlier stores wrote, in positional parameters `?` (SQLite) or `$n` (PostgreSQL). */
const ROWS: [string, unknown[]][] = [
  [
    `INSERT INTO requests (id, kind, status, conversion, from_format, to_format, options, filename, input_key,
       owner_hash, identity, queue, attempts, progress, quota_kind, quota_day, created_at, updated_at, inputs)
     VALUES (?, 'convert', 'running', 'csv-json', 'csv', 'json', '{"pretty":true,"delimiter":";"}', 'data.csv',
       'inputs/old-1', 'owner-1', 'ip:203.0.113.7', 'working', 1, ?, 'conversions', '2026-03-10', ?, ?, NULL)`,
    ['old-1', PROGRESS, NOW, NOW],
  ],
  [
    `INSERT INTO requests (id, kind, status, conversion, from_format, to_format, filename, identity, queue,
       progress, created_at, updated_at, finished_at, owner_hash)
     VALUES (?, 'convert', 'succeeded', 'csv-json', 'csv', 'json', 'done.csv', 'ip:203.0.113.7', 'done',
       '{"percent":100,"stage":"done","step":1,"steps":1}', ?, ?, ?, 'owner-1')`,
    ['old-2', NOW - 10, NOW - 5, NOW - 5],
  ],
  [
    `INSERT INTO artifacts (request_id, name, format, mime, size, sha256, blob_key, filename, position, expires_at, checks)
     VALUES (?, 'result', 'json', 'application/json', 42, ?, 'artifacts/old-2/result.json', 'done.json', 0, ?, '{"words":3}')`,
    ['old-2', 'ab'.repeat(32), NOW + 3_600_000],
  ],
  [
    `INSERT INTO events (request_id, at, kind, message) VALUES (?, ?, 'received', 'Received data.csv.')`,
    ['old-1', NOW],
  ],
  [
    `INSERT INTO events (request_id, at, kind, message) VALUES (?, ?, 'started', 'Started.')`,
    ['old-1', NOW + 1],
  ],
  [
    `INSERT INTO api_keys (id, hash, prefix, label, created_at) VALUES ('key_old', ?, 'fck_abcd', 'ci', ?)`,
    ['cd'.repeat(32), NOW - 1_000],
  ],
  [
    `INSERT INTO quota_usage (identity, kind, day, used) VALUES ('key:key_old', 'conversions', ?, 3)`,
    ['2026-03-10'],
  ],
  [
    `INSERT INTO webhooks (request_id, url, events, base_url) VALUES (?, 'https://hooks.example/x', '["succeeded"]', 'https://api.example')`,
    ['old-1'],
  ],
  [
    `INSERT INTO secrets (name, value, created_at) VALUES ('link-signing', ?, ?)`,
    [Buffer.from('0123456789abcdef'), NOW],
  ],
];

const positional = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

async function readsAndWritesOn(records: Records): Promise<void> {
  const working = await records.requests.getRequest('old-1');
  expect(working).toMatchObject({
    id: 'old-1',
    status: 'running',
    queue: 'working',
    attempts: 1,
    options: { pretty: true, delimiter: ';' },
    progress: { percent: 40, stage: 'converting', step: 1, steps: 2 },
    quota: { kind: 'conversions', day: '2026-03-10' },
    createdAt: NOW,
  });
  expect(Object.keys(working!.options!)).toEqual(['pretty', 'delimiter']);
  expect(await records.requests.timeline('old-1')).toEqual([
    { at: NOW, kind: 'received', message: 'Received data.csv.' },
    { at: NOW + 1, kind: 'started', message: 'Started.' },
  ]);
  expect((await records.requests.recentByOwner('owner-1', 10)).map((r) => r.id)).toEqual(['old-1', 'old-2']);
  expect(await records.requests.artifacts('old-2')).toEqual([
    expect.objectContaining({ name: 'result', size: 42, expired: false, checks: { words: 3 } }),
  ]);
  expect(await records.requests.webhook('old-1')).toEqual({
    requestId: 'old-1',
    url: 'https://hooks.example/x',
    events: ['succeeded'],
    baseUrl: 'https://api.example',
  });
  expect(await records.keys.findByHash('cd'.repeat(32))).toMatchObject({ id: 'key_old', label: 'ci' });
  expect((await records.quotas.peek('key:key_old', 'conversions', 5, NOW)).remaining).toBe(2);
  expect((await records.secrets.secret('link-signing')).toString()).toBe('0123456789abcdef');
  expect(await records.requests.liveBlobKeys()).toEqual(
    new Set(['inputs/old-1', 'artifacts/old-2/result.json']),
  );

  // Writing on: the interrupted conversion goes back to the queue and finishes.
  const { requeued } = await records.requests.requeueInterrupted(NOW + 10, 3);
  expect(requeued.map((r) => r.id)).toEqual(['old-1']);
  // A request from before lanes has none: a claim that passes over full lanes still takes it.
  const claimed = await records.requests.claimNextQueued(NOW + 20, ['ffmpeg']);
  expect(claimed).toMatchObject({ id: 'old-1', attempts: 2 });
  expect(
    await records.requests.finishSucceeded('old-1', [], NOW + 30, {
      at: NOW + 30,
      kind: 'done',
      message: 'Done.',
    }),
  ).toBe(true);
  expect((await records.requests.getRequest('old-1'))?.progress).toEqual({
    percent: 100,
    stage: 'done',
    step: 0,
    steps: 0,
  });
  expect((await records.requests.timeline('old-1')).at(-1)).toEqual({
    at: NOW + 30,
    kind: 'done',
    message: 'Done.',
  });
  await records.keys.createKey({ id: 'key_new', hash: 'ef'.repeat(32), prefix: 'fck_efef', createdAt: NOW });
  expect((await records.keys.listKeys()).map((k) => k.id)).toEqual(['key_old', 'key_new']);
  expect((await records.quotas.consume('key:key_old', 'conversions', 5, NOW)).remaining).toBe(1);
  expect((await records.writeLimits.admit('ip:203.0.113.7', 2, 60_000, NOW)).allowed).toBe(true);
  await records.requests.checkWritable();
}

describe('records made by the earlier SQLite schema', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fileconv-upgrade-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function legacyDatabase(file: string, steps: number): void {
    const db = new Database(file);
    LEGACY_SQLITE_MIGRATIONS.slice(0, steps).forEach((migration, i) => {
      db.exec(migration);
      db.pragma(`user_version = ${i + 1}`);
    });
    if (steps === LEGACY_SQLITE_MIGRATIONS.length)
      for (const [text, values] of ROWS) db.prepare(text).run(...values);
    db.close();
  }

  it('opens in place: reads every record, writes on, and counts its schema steps on', async () => {
    const file = join(dir, 'complete.db');
    legacyDatabase(file, LEGACY_SQLITE_MIGRATIONS.length);
    const records = openSqliteRecords(file);
    try {
      await readsAndWritesOn(records);
    } finally {
      await records.close();
    }
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(schemaVersion(sqliteDialect));
    // The earlier count goes on: its last step is the first step here.
    expect(schemaVersion(sqliteDialect)).toBe(LEGACY_SQLITE_MIGRATIONS.length + MIGRATIONS.length - 1);
    db.close();
  });

  it('refuses one the earlier schema left half-way, with a clear error, and leaves it as it was', () => {
    const file = join(dir, 'partial.db');
    legacyDatabase(file, 4);
    expect(() => openSqliteRecords(file)).toThrow(/schema step 4/);
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(4);
    db.close();
  });
});

describe.skipIf(!postgresBin)(
  `records made by the earlier PostgreSQL schema (${postgresBin ? 'a throwaway cluster' : POSTGRES_MISSING})`,
  () => {
    let server: TestPostgres | undefined;
    beforeAll(async () => {
      server = await startPostgres();
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('opens in place: reads every record, writes on, and counts its schema steps on', async () => {
      const url = await server!.createDatabase('legacy_complete');
      const client = new pg.Client(url);
      await client.connect();
      try {
        await client.query('CREATE TABLE fileconv_schema (version INTEGER NOT NULL)');
        for (const migration of LEGACY_POSTGRES_MIGRATIONS) await client.query(migration);
        await client.query('INSERT INTO fileconv_schema (version) VALUES ($1)', [
          LEGACY_POSTGRES_MIGRATIONS.length,
        ]);
        for (const [text, values] of ROWS) await client.query(positional(text), values);
        const records = await openPostgresRecords(url);
        try {
          await readsAndWritesOn(records);
        } finally {
          await records.close();
        }
        const { rows } = await client.query('SELECT version FROM fileconv_schema');
        expect(rows).toEqual([{ version: schemaVersion(postgresDialect) }]);
        expect(schemaVersion(postgresDialect)).toBe(
          LEGACY_POSTGRES_MIGRATIONS.length + MIGRATIONS.length - 1,
        );
      } finally {
        await client.end();
      }
    });
  },
);
