import type pg from 'pg';
import type { Progress } from '../run/types.js';
import { claimTokenHash } from './claim-token.js';
import { transaction } from './postgres-db.js';
import {
  finishRunning,
  insertArtifacts,
  insertEvent,
  insertRequest,
  QUEUED_PROGRESS,
  requeueOne,
} from './postgres-writes.js';
import { type ArtifactRow, inputKeysOf, type RequestRow, toArtifact, toRequest } from './sqlite-schema.js';
import type {
  ArtifactRecord,
  ClaimTicket,
  ConversionCounts,
  Counts,
  NewRequest,
  RequestRecord,
  RequestStore,
  StoredError,
  StoredWebhook,
  TimelineEvent,
} from './types.js';

/**
 * RequestStore on PostgreSQL, behaving as the SQLite store does. Every state change that a second
 * node could race (claim, finish, requeue) is conditional on the request's status, checked in one
 * statement or under the row's lock, so a duplicate delivery of a job finds the request finished
 * and stores nothing twice.
 */
export class PostgresRequestStore implements RequestStore {
  constructor(private readonly pool: pg.Pool) {}

  async createRequest(r: NewRequest, events: readonly TimelineEvent[]): Promise<void> {
    await transaction(this.pool, async (client) => {
      await insertRequest(client, r);
      for (const e of events) await insertEvent(client, r.id, e);
    });
  }

  async getRequest(id: string): Promise<RequestRecord | undefined> {
    const { rows } = await this.pool.query<RequestRow>('SELECT * FROM requests WHERE id = $1', [id]);
    return rows[0] && toRequest(rows[0]);
  }

  async recentByOwner(ownerHash: string, limit: number): Promise<RequestRecord[]> {
    const { rows } = await this.pool.query<RequestRow>(
      'SELECT * FROM requests WHERE owner_hash = $1 ORDER BY created_at DESC, seq DESC LIMIT $2',
      [ownerHash, limit],
    );
    return rows.map(toRequest);
  }

  async countQueued(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      `SELECT count(*) AS n FROM requests WHERE queue = 'queued'`,
    );
    return rows[0]!.n;
  }

  async claimNextQueued(now: number, fullLanes: readonly string[] = []): Promise<RequestRecord | undefined> {
    // SKIP LOCKED: two nodes claiming at once take different requests instead of waiting.
    const { rows } = await this.pool.query<RequestRow>(
      `UPDATE requests SET queue = 'working', attempts = attempts + 1, updated_at = $1
         WHERE id = (SELECT id FROM requests WHERE queue = 'queued' AND coalesce(lane, '') <> ALL($2::text[])
                     ORDER BY created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
      [now, fullLanes],
    );
    return rows[0] && toRequest(rows[0]);
  }

  async claim(id: string, now: number, ticket?: ClaimTicket): Promise<RequestRecord | undefined> {
    // Two workers claiming at once: the second UPDATE waits for the first's row lock, then checks
    // its condition against the row the first left (working, fresh heartbeat) and changes nothing.
    const { rows } = await this.pool.query<RequestRow>(
      `UPDATE requests SET queue = 'working', attempts = attempts + 1, updated_at = $1,
           claim_token = $3, heartbeat_at = $4
         WHERE id = $2 AND status = 'running'
           AND ($5::bigint IS NULL OR queue <> 'working' OR heartbeat_at IS NULL OR heartbeat_at < $5::bigint)
         RETURNING *`,
      [
        now,
        id,
        ticket ? claimTokenHash(ticket.token) : null,
        ticket ? now : null,
        ticket?.staleBefore ?? null,
      ],
    );
    return rows[0] && toRequest(rows[0]);
  }

  async heartbeat(id: string, token: string, now: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE requests SET heartbeat_at = $1
         WHERE id = $2 AND claim_token = $3 AND queue = 'working' AND status = 'running'`,
      [now, id, claimTokenHash(token)],
    );
    return rowCount === 1;
  }

  async releaseStale(now: number, staleBefore: number): Promise<RequestRecord[]> {
    // Sweepers on several workers at once: each row's lock makes one of them change it; the others
    // find it queued when they get the lock, and skip it.
    const { rows } = await this.pool.query<RequestRow>(
      `UPDATE requests SET queue = 'queued', progress = $1, updated_at = $2, claim_token = NULL
         WHERE status = 'running' AND queue = 'working' AND heartbeat_at < $3 RETURNING *`,
      [JSON.stringify(QUEUED_PROGRESS), now, staleBefore],
    );
    return rows.map(toRequest);
  }

  async requeueInterrupted(
    now: number,
    maxAttempts: number,
  ): Promise<{ requeued: RequestRecord[]; failed: RequestRecord[] }> {
    return transaction(this.pool, async (client) => {
      const { rows } = await client.query<RequestRow>(
        `SELECT * FROM requests WHERE queue = 'working' ORDER BY created_at, seq FOR UPDATE`,
      );
      const requeued: RequestRecord[] = [];
      const failed: RequestRecord[] = [];
      for (const r of rows.map(toRequest)) {
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

  async requeue(id: string, now: number, token?: string): Promise<boolean> {
    return requeueOne(this.pool, id, now, token);
  }

  async updateProgress(id: string, progress: Progress, now: number): Promise<void> {
    await this.pool.query('UPDATE requests SET progress = $1, updated_at = $2 WHERE id = $3', [
      JSON.stringify(progress),
      now,
      id,
    ]);
  }

  async finishSucceeded(
    id: string,
    artifacts: readonly ArtifactRecord[],
    now: number,
    events?: TimelineEvent | readonly TimelineEvent[],
  ): Promise<boolean> {
    return transaction(this.pool, async (client) => {
      const finished = await finishRunning(client, id, now, { status: 'succeeded', events }, (p) => ({
        ...p,
        percent: 100,
        stage: 'done',
        step: p.steps,
      }));
      if (!finished) return false;
      await insertArtifacts(client, artifacts);
      return true;
    });
  }

  async finishFailed(
    id: string,
    error: StoredError,
    now: number,
    events?: TimelineEvent | readonly TimelineEvent[],
  ): Promise<boolean> {
    return transaction(this.pool, (client) =>
      finishRunning(client, id, now, { status: 'failed', error, events }, (p) => ({ ...p, stage: 'done' })),
    );
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
    const { rows } = await this.pool.query<ArtifactRow>(
      'SELECT * FROM artifacts WHERE request_id = $1 ORDER BY position',
      [requestId],
    );
    return rows.map(toArtifact);
  }

  async artifact(requestId: string, name: string): Promise<ArtifactRecord | undefined> {
    const { rows } = await this.pool.query<ArtifactRow>(
      'SELECT * FROM artifacts WHERE request_id = $1 AND name = $2',
      [requestId, name],
    );
    return rows[0] && toArtifact(rows[0]);
  }

  async dueArtifacts(now: number): Promise<ArtifactRecord[]> {
    const { rows } = await this.pool.query<ArtifactRow>(
      'SELECT * FROM artifacts WHERE expired = 0 AND expires_at <= $1 ORDER BY expires_at',
      [now],
    );
    return rows.map(toArtifact);
  }

  async markExpired(requestId: string, name: string): Promise<boolean> {
    const marked = await this.pool.query(
      'UPDATE artifacts SET expired = 1 WHERE request_id = $1 AND name = $2 AND expired = 0',
      [requestId, name],
    );
    return (marked.rowCount ?? 0) > 0;
  }

  async liveBlobKeys(): Promise<Set<string>> {
    const inputs = await this.pool.query<{ input_key: string | null; inputs: string | null }>(
      'SELECT input_key, inputs FROM requests WHERE input_key IS NOT NULL',
    );
    const artifacts = await this.pool.query<{ k: string }>(
      'SELECT blob_key AS k FROM artifacts WHERE expired = 0',
    );
    return new Set([...inputs.rows.flatMap(inputKeysOf), ...artifacts.rows.map((r) => r.k)]);
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
    const { rows } = await this.pool.query<{ url: string; events: string; base_url: string }>(
      'SELECT url, events, base_url FROM webhooks WHERE request_id = $1',
      [requestId],
    );
    const row = rows[0];
    return (
      row && { requestId, url: row.url, events: JSON.parse(row.events) as string[], baseUrl: row.base_url }
    );
  }

  async checkWritable(): Promise<void> {
    await this.pool.query(
      'INSERT INTO health (id, checked_at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET checked_at = EXCLUDED.checked_at',
      [Date.now()],
    );
  }
}
