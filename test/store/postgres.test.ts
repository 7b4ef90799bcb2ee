import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresRecords } from '../../src/store/postgres-records.js';
import { PgBossQueue } from '../../src/store/queue/pg-boss.js';
import { postgresDialect, schemaVersion } from '../../src/store/sql/dialect.js';
import type { Records } from '../../src/store/types.js';
import { POSTGRES_MISSING, postgresBin, startPostgres, type TestPostgres } from '../support/postgres.js';
import { jsonArtifact, queuedConversion } from '../support/records.js';

/**
 * What only a shared database has to get right: several nodes (each its own pool) migrating,
 * counting quotas and write limits, claiming and finishing at the same moment. The behaviour
 * every records driver shares is the contract suite's (postgres.contract.test.ts).
 */

const NODES = 4;

describe.skipIf(!postgresBin)(
  `PostgreSQL records across nodes (${postgresBin ? 'PostgreSQL' : POSTGRES_MISSING})`,
  () => {
    let server: TestPostgres;
    let nodes: Records[] = [];
    let databases = 0;

    /** `NODES` record stores on one fresh database, opened at the same time (so migrating at once). */
    async function openNodes(): Promise<Records[]> {
      const url = await server.createDatabase(`nodes_${++databases}`);
      nodes = await Promise.all(Array.from({ length: NODES }, () => openPostgresRecords(url)));
      return nodes;
    }

    beforeAll(async () => {
      server = await startPostgres();
    });
    afterEach(async () => {
      await Promise.all(nodes.map((n) => n.close()));
      nodes = [];
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('migrates once when several nodes start at the same moment', async () => {
      const [first] = await openNodes();
      await first!.requests.checkWritable();
      const client = new pg.Client(`${server.url.replace(/\/[^/]+$/, '')}/nodes_${databases}`);
      await client.connect();
      try {
        const { rows } = await client.query('SELECT version FROM fileconv_schema');
        expect(rows).toEqual([{ version: schemaVersion(postgresDialect) }]);
      } finally {
        await client.end();
      }
    });

    it('gives out exactly the daily quota when nodes consume at once', async () => {
      const all = await openNodes();
      const limit = 25;
      const results = await Promise.all(
        Array.from({ length: 80 }, (_, i) => all[i % NODES]!.quotas.consume('key:k1', 'conversions', limit)),
      );
      expect(results.filter((r) => r.allowed)).toHaveLength(limit);
      expect(results.filter((r) => !r.allowed).every((r) => r.remaining === 0)).toBe(true);
      expect((await all[1]!.quotas.peek('key:k1', 'conversions', limit)).remaining).toBe(0);
      const day = results[0]!.day;
      expect(await all[2]!.quotas.refund('key:k1', { kind: 'conversions', day })).toBe(true);
      expect((await all[3]!.quotas.peek('key:k1', 'conversions', limit)).remaining).toBe(1);
    });

    it('admits exactly the write limit within a window when nodes admit at once', async () => {
      const all = await openNodes();
      const now = Date.now();
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          all[i % NODES]!.writeLimits.admit('ip:198.51.100.1', 10, 60_000, now + i),
        ),
      );
      expect(results.filter((r) => r.allowed)).toHaveLength(10);
      const refused = results.filter((r) => !r.allowed);
      expect(refused.every((r) => r.remaining === 0 && r.retryAfterSeconds >= 1)).toBe(true);
      // One window later the slots are free again.
      expect((await all[0]!.writeLimits.admit('ip:198.51.100.1', 10, 60_000, now + 60_100)).allowed).toBe(
        true,
      );
    });

    it('claims each queued request once when nodes claim at once', async () => {
      const all = await openNodes();
      const now = Date.now();
      for (let i = 0; i < 12; i++)
        await all[0]!.requests.createRequest(queuedConversion(`q${i}`, now + i), []);
      const claimed = await Promise.all(
        Array.from({ length: 20 }, (_, i) => all[i % NODES]!.requests.claimNextQueued(now + 100)),
      );
      const ids = claimed.flatMap((r) => (r ? [r.id] : []));
      expect(ids.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `q${i}`).sort());
      expect(await all[1]!.requests.countQueued()).toBe(0);
    });

    it('stores a duplicate delivery nothing twice: one finish wins, a late claim finds the request done', async () => {
      const all = await openNodes();
      await all[0]!.requests.createRequest(queuedConversion('dup', Date.now()), []);
      const claims = await Promise.all([all[0]!.requests.claim('dup', 1), all[1]!.requests.claim('dup', 2)]);
      expect(claims.map((c) => c?.status)).toEqual(['running', 'running']);
      const finished = await Promise.all(
        all.map((node) => node.requests.finishSucceeded('dup', [jsonArtifact('dup')], Date.now())),
      );
      expect(finished.filter(Boolean)).toHaveLength(1);
      expect(await all[2]!.requests.artifacts('dup')).toHaveLength(1);
      expect(
        await all[3]!.requests.finishFailed('dup', { code: 'ENGINE_FAILED', message: 'late' }, Date.now()),
      ).toBe(false);
      expect(await all[3]!.requests.claim('dup', Date.now())).toBeUndefined();
      const stored = await all[1]!.requests.getRequest('dup');
      expect(stored).toMatchObject({ status: 'succeeded', queue: 'done', attempts: 2, error: undefined });
      expect(stored?.progress).toEqual({ percent: 100, stage: 'done', step: 2, steps: 2 });
    });

    it('gives JSON back with its keys in the order written, as the SQLite store does', async () => {
      const [node] = await openNodes();
      const report = { zeta: 1, alpha: { second: 2, first: 1 }, mid: [3, 1] };
      await node!.requests.createRequest(queuedConversion('order', Date.now(), { report }), []);
      await node!.requests.finishFailed('order', { code: 'ENGINE_FAILED', message: 'no' }, Date.now());
      const stored = await node!.requests.getRequest('order');
      expect(JSON.stringify(stored?.report)).toBe(JSON.stringify(report));
      expect(Object.keys(stored!.progress)).toEqual(['percent', 'stage', 'step', 'steps']);
      expect(stored?.progress.stage).toBe('done');
    });

    it('says which database it cannot open, without the password', async () => {
      const missing = server.url
        .replace(/\/\/([^@]+)@/, '//$1:s3cret@')
        .replace(/\/[^/]+$/, '/no_such_database');
      for (const open of [() => openPostgresRecords(missing), () => PgBossQueue.open({ url: missing })]) {
        const err = await open().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toMatchObject({ code: 'CONVERT_API_UNAVAILABLE' });
        expect(String((err as Error).message)).toMatch(/no_such_database.*does not exist/);
        expect(String((err as Error).message)).not.toContain('s3cret');
      }
    });

    it('hands every node the same secret, made once', async () => {
      const all = await openNodes();
      const secrets = await Promise.all(all.map((n) => n.secrets.secret('signing')));
      expect(secrets[0]).toHaveLength(32);
      for (const s of secrets) expect(s.equals(secrets[0]!)).toBe(true);
      const adopted = await all[0]!.secrets.secret('webhook', Buffer.alloc(32, 7));
      expect(adopted.equals(Buffer.alloc(32, 7))).toBe(true);
      expect((await all[1]!.secrets.secret('webhook')).equals(adopted)).toBe(true);
    });
  },
);
