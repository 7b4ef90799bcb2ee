import type pg from 'pg';
import type { Progress } from '../run/types.js';
import { transaction } from './postgres-db.js';
import { type PgArtifactRow, type PgRequestRow, pgToArtifact, pgToRequest } from './postgres-schema.js';
import type {
  ArtifactRecord,
  ConversionCounts,
  Counts,
  NewRequest,
  RequestRecord,
  RequestStore,
  StoredError,
  StoredWebhook,
  TimelineEvent,
} from './types.js';

type Queryable = pg.Pool | pg.PoolClient;

const QUEUED_PROGRESS: Progress = { percent: 0, stage: 'queued', step: 0, steps: 0 };

/**
 * RequestStore on PostgreSQL, behaving as the SQLite store does. Every state change that a second
 * node could race (claim, finish, requeue) is one conditional statement, so a duplicate delivery
 * of a job finds the request finished and stores nothing twice.
 */
export class PostgresRequestStore implements RequestStore {
  constructor(private readonly pool: pg.Pool) {}

  async createRequest(r: NewRequest, events: readonly TimelineEvent[]): Promise<void> {
    await transaction(this.pool, async (client) => {
      await client.query(
        `INSERT INTO requests (id, kind, status, conversion, from_format, to_format, options, filename, input_key,
           owner_hash, identity, queue, progress, report, quota_kind, quota_day, created_at, updated_at, finished_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17, $18)`,
        [
          r.id,
          r.kind,
          r.status,
          r.conversion ?? null,
          r.from ?? null,
          r.to ?? null,
          r.options ? JSON.stringify(r.options) : null,
          r.filename,
          r.inputKey ?? null,
          r.ownerHash ?? null,
          r.identity,
          r.queue,
          JSON.stringify(r.progress),
          r.report ? JSON.stringify(r.report) : null,
          r.quota?.kind ?? null,
          r.quota?.day ?? null,
          r.createdAt,
          r.status === 'running' ? null : r.createdAt,
        ],
      );
      for (const e of events) await insertEvent(client, r.id, e);
    });
  }

  async getRequest(id: string): Promise<RequestRecord | undefined> {
    const { rows } = await this.pool.query<PgRequestRow>('SELECT * FROM requests WHERE id = $1', [id]);
    return rows[0] && pgToRequest(rows[0]);
  }

  async recentByOwner(ownerHash: string, limit: number): Promise<RequestRecord[]> {
    const { rows } = await this.pool.query<PgRequestRow>(
      'SELECT * FROM requests WHERE owner_hash = $1 ORDER BY created_at DESC, seq DESC LIMIT $2',
      [ownerHash, limit],
    );
    return rows.map(pgToRequest);
  }

  async countQueued(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      `SELECT count(*) AS n FROM requests WHERE queue = 'queued'`,
    );
    return rows[0]!.n;
  }

  async claimNextQueued(now: number): Promise<RequestRecord | undefined> {
    // SKIP LOCKED: two nodes claiming at once take different requests instead of waiting.
    const { rows } = await this.pool.query<PgRequestRow>(
      `UPDATE requests SET queue = 'working', attempts = attempts + 1, updated_at = $1
         WHERE id = (SELECT id FROM requests WHERE queue = 'queued' ORDER BY created_at, seq
                     LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
      [now],
    );
    return rows[0] && pgToRequest(rows[0]);
  }

  async claim(id: string, now: number): Promise<RequestRecord | undefined> {
    const { rows } = await this.pool.query<PgRequestRow>(
      `UPDATE requests SET queue = 'working', attempts = attempts + 1, updated_at = $1
         WHERE id = $2 AND status = 'running' RETURNING *`,
      [now, id],
    );
    return rows[0] && pgToRequest(rows[0]);
  }

  async requeueInterrupted(
    now: number,
    maxAttempts: number,
  ): Promise<{ requeued: RequestRecord[]; failed: RequestRecord[] }> {
    return transaction(this.pool, async (client) => {
      const { rows } = await client.query<PgRequestRow>(
        `SELECT * FROM requests WHERE queue = 'working' ORDER BY created_at, seq FOR UPDATE`,
      );
      const requeued: RequestRecord[] = [];
      const failed: RequestRecord[] = [];
      for (const r of rows.map(pgToRequest)) {
        if (r.inputKey && r.attempts < maxAttempts) {
          await requeueOne(client, r.id, now);
          requeued.push(r);
        } else {
          failed.push(r);
        }
      }
      return { requeued, failed };
    });
  }

  async requeue(id: string, now: number): Promise<void> {
    await requeueOne(this.pool, id, now);
  }

  async updateProgress(id: string, progress: Progress, now: number): Promise<void> {
    await this.pool.query('UPDATE requests SET progress = $1, updated_at = $2 WHERE id = $3', [
      JSON.stringify(progress),
      now,
      id,
    ]);
  }

  async finishSucceeded(id: string, artifacts: readonly ArtifactRecord[], now: number): Promise<boolean> {
    return transaction(this.pool, async (client) => {
      const finished = await client.query(
        `UPDATE requests SET status = 'succeeded', queue = 'done', updated_at = $1, finished_at = $1,
             progress = progress || jsonb_build_object('percent', 100, 'stage', 'done', 'step', progress -> 'steps')
           WHERE id = $2 AND status = 'running'`,
        [now, id],
      );
      if (finished.rowCount === 0) return false;
      for (const [i, a] of artifacts.entries()) {
        await client.query(
          `INSERT INTO artifacts (request_id, name, format, mime, size, sha256, blob_key, filename, position, expires_at, checks)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          [
            a.requestId,
            a.name,
            a.format,
            a.mime,
            a.size,
            a.sha256,
            a.blobKey,
            a.filename,
            i,
            a.expiresAt,
            a.checks ? JSON.stringify(a.checks) : null,
          ],
        );
      }
      return true;
    });
  }

  async finishFailed(id: string, error: StoredError, now: number): Promise<boolean> {
    const finished = await this.pool.query(
      `UPDATE requests SET status = 'failed', queue = 'done', error_code = $1, error_message = $2, updated_at = $3,
           finished_at = $3, progress = progress || '{"stage": "done"}'::jsonb
         WHERE id = $4 AND status = 'running'`,
      [error.code, error.message, now, id],
    );
    return (finished.rowCount ?? 0) > 0;
  }

  async clearInputKey(id: string): Promise<void> {
    await this.pool.query('UPDATE requests SET input_key = NULL WHERE id = $1', [id]);
  }

  async addEvent(id: string, event: TimelineEvent): Promise<void> {
    await insertEvent(this.pool, id, event);
  }

  async timeline(id: string): Promise<TimelineEvent[]> {
    const { rows } = await this.pool.query<TimelineEvent>(
      'SELECT at, kind, message FROM events WHERE request_id = $1 ORDER BY seq',
      [id],
    );
    return rows;
  }

  async artifacts(requestId: string): Promise<ArtifactRecord[]> {
    const { rows } = await this.pool.query<PgArtifactRow>(
      'SELECT * FROM artifacts WHERE request_id = $1 ORDER BY position',
      [requestId],
    );
    return rows.map(pgToArtifact);
  }

  async artifact(requestId: string, name: string): Promise<ArtifactRecord | undefined> {
    const { rows } = await this.pool.query<PgArtifactRow>(
      'SELECT * FROM artifacts WHERE request_id = $1 AND name = $2',
      [requestId, name],
    );
    return rows[0] && pgToArtifact(rows[0]);
  }

  async dueArtifacts(now: number): Promise<ArtifactRecord[]> {
    const { rows } = await this.pool.query<PgArtifactRow>(
      'SELECT * FROM artifacts WHERE NOT expired AND expires_at <= $1 ORDER BY expires_at',
      [now],
    );
    return rows.map(pgToArtifact);
  }

  async markExpired(requestId: string, name: string): Promise<boolean> {
    const marked = await this.pool.query(
      'UPDATE artifacts SET expired = true WHERE request_id = $1 AND name = $2 AND NOT expired',
      [requestId, name],
    );
    return (marked.rowCount ?? 0) > 0;
  }

  async liveBlobKeys(): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ k: string }>(
      `SELECT input_key AS k FROM requests WHERE input_key IS NOT NULL
       UNION SELECT blob_key AS k FROM artifacts WHERE NOT expired`,
    );
    return new Set(rows.map((r) => r.k));
  }

  async conversionCounts(since: number): Promise<ConversionCounts[]> {
    // COLLATE "C": byte order, as SQLite sorts, whatever the database's locale.
    const { rows } = await this.pool.query<{
      key: string;
      s_all: number;
      f_all: number;
      s_day: number;
      f_day: number;
    }>(
      `SELECT conversion AS key,
           count(*) FILTER (WHERE status = 'succeeded') AS s_all,
           count(*) FILTER (WHERE status = 'failed') AS f_all,
           count(*) FILTER (WHERE status = 'succeeded' AND finished_at >= $1) AS s_day,
           count(*) FILTER (WHERE status = 'failed' AND finished_at >= $1) AS f_day
         FROM requests WHERE kind = 'convert' AND status != 'running'
         GROUP BY conversion ORDER BY conversion COLLATE "C"`,
      [since],
    );
    const counts = (s: number, f: number): Counts => ({ total: s + f, succeeded: s, failed: f });
    return rows.map((r) => ({
      key: r.key,
      lastDay: counts(r.s_day, r.f_day),
      allTime: counts(r.s_all, r.f_all),
    }));
  }

  async saveWebhook(w: StoredWebhook): Promise<void> {
    await this.pool.query(
      'INSERT INTO webhooks (request_id, url, events, base_url) VALUES ($1, $2, $3, $4)',
      [w.requestId, w.url, JSON.stringify(w.events), w.baseUrl],
    );
  }

  async webhook(requestId: string): Promise<StoredWebhook | undefined> {
    const { rows } = await this.pool.query<{ url: string; events: string[]; base_url: string }>(
      'SELECT url, events, base_url FROM webhooks WHERE request_id = $1',
      [requestId],
    );
    const row = rows[0];
    return row && { requestId, url: row.url, events: row.events, baseUrl: row.base_url };
  }

  async checkWritable(): Promise<void> {
    await this.pool.query(
      'INSERT INTO health (id, checked_at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET checked_at = EXCLUDED.checked_at',
      [Date.now()],
    );
  }
}

async function insertEvent(db: Queryable, id: string, event: TimelineEvent): Promise<void> {
  await db.query('INSERT INTO events (request_id, at, kind, message) VALUES ($1, $2, $3, $4)', [
    id,
    event.at,
    event.kind,
    event.message,
  ]);
}

async function requeueOne(db: Queryable, id: string, now: number): Promise<void> {
  await db.query(
    `UPDATE requests SET queue = 'queued', progress = $1, updated_at = $2 WHERE id = $3 AND status = 'running'`,
    [JSON.stringify(QUEUED_PROGRESS), now, id],
  );
}
