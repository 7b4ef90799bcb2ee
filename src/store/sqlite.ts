import type Database from 'better-sqlite3';
import type { Progress } from '../run/types.js';
import { claimTokenHash } from './claim-token.js';
import { statements } from './sqlite-db.js';
import {
  type ArtifactRow,
  artifactValues,
  inputKeysOf,
  type RequestRow,
  toArtifact,
  toRequest,
} from './sqlite-schema.js';
import {
  type ArtifactRecord,
  type ClaimTicket,
  type ConversionCounts,
  type Counts,
  eventList,
  type NewRequest,
  type RequestRecord,
  type RequestStore,
  type StoredError,
  type StoredWebhook,
  type TimelineEvent,
} from './types.js';

const QUEUED_PROGRESS_JSON = JSON.stringify({
  percent: 0,
  stage: 'queued',
  step: 0,
  steps: 0,
} satisfies Progress);

/** RequestStore on a SQLite database shared with the other record stores (sqlite-records.ts). */
export class SqliteRequestStore implements RequestStore {
  private readonly db: Database.Database;
  private readonly sql: (sql: string) => Database.Statement;

  constructor(db: Database.Database) {
    this.db = db;
    this.sql = statements(this.db);
  }

  async createRequest(r: NewRequest, events: readonly TimelineEvent[]): Promise<void> {
    const insert = this.sql(
      `INSERT INTO requests (id, kind, status, conversion, from_format, to_format, options, filename, input_key,
         owner_hash, identity, queue, progress, report, quota_kind, quota_day, created_at, updated_at, finished_at, inputs, lane)
       VALUES (@id, @kind, @status, @conversion, @from, @to, @options, @filename, @inputKey,
         @ownerHash, @identity, @queue, @progress, @report, @quotaKind, @quotaDay, @createdAt, @createdAt, @finishedAt,
         @inputs, @lane)`,
    );
    this.db.transaction(() => {
      insert.run({
        id: r.id,
        kind: r.kind,
        status: r.status,
        conversion: r.conversion ?? null,
        from: r.from ?? null,
        to: r.to ?? null,
        options: r.options ? JSON.stringify(r.options) : null,
        filename: r.filename,
        inputKey: r.inputKey ?? null,
        ownerHash: r.ownerHash ?? null,
        identity: r.identity,
        queue: r.queue,
        progress: JSON.stringify(r.progress),
        report: r.report ? JSON.stringify(r.report) : null,
        quotaKind: r.quota?.kind ?? null,
        quotaDay: r.quota?.day ?? null,
        createdAt: r.createdAt,
        finishedAt: r.status === 'running' ? null : r.createdAt,
        inputs: r.inputs ? JSON.stringify(r.inputs) : null,
        lane: r.lane ?? null,
      });
      for (const e of events) this.insertEvent(r.id, e);
    })();
  }

  async getRequest(id: string): Promise<RequestRecord | undefined> {
    const row = this.sql('SELECT * FROM requests WHERE id = ?').get(id) as RequestRow | undefined;
    return row && toRequest(row);
  }

  async recentByOwner(ownerHash: string, limit: number): Promise<RequestRecord[]> {
    const rows = this.sql(
      'SELECT * FROM requests WHERE owner_hash = ? ORDER BY created_at DESC, rowid DESC LIMIT ?',
    ).all(ownerHash, limit) as RequestRow[];
    return rows.map(toRequest);
  }

  async countQueued(): Promise<number> {
    return (this.sql(`SELECT count(*) AS n FROM requests WHERE queue = 'queued'`).get() as { n: number }).n;
  }

  async claimNextQueued(now: number, fullLanes: readonly string[] = []): Promise<RequestRecord | undefined> {
    return this.db.transaction(() => {
      const row = this.sql(
        `SELECT * FROM requests WHERE queue = 'queued'
           AND coalesce(lane, '') NOT IN (SELECT value FROM json_each(?))
         ORDER BY created_at, rowid LIMIT 1`,
      ).get(JSON.stringify(fullLanes)) as RequestRow | undefined;
      if (!row) return undefined;
      this.sql(
        `UPDATE requests SET queue = 'working', attempts = attempts + 1, updated_at = ? WHERE id = ?`,
      ).run(now, row.id);
      return toRequest({ ...row, queue: 'working', attempts: row.attempts + 1 });
    })();
  }

  async claim(id: string, now: number, ticket?: ClaimTicket): Promise<RequestRecord | undefined> {
    const row = this.sql(
      `UPDATE requests SET queue = 'working', attempts = attempts + 1, updated_at = @now,
           claim_token = @token, heartbeat_at = @beat
         WHERE id = @id AND status = 'running'
           AND (@staleBefore IS NULL OR queue <> 'working' OR heartbeat_at IS NULL OR heartbeat_at < @staleBefore)
         RETURNING *`,
    ).get({
      id,
      now,
      token: ticket ? claimTokenHash(ticket.token) : null,
      beat: ticket ? now : null,
      staleBefore: ticket?.staleBefore ?? null,
    }) as RequestRow | undefined;
    return row && toRequest(row);
  }

  async heartbeat(id: string, token: string, now: number): Promise<boolean> {
    const { changes } = this.sql(
      `UPDATE requests SET heartbeat_at = ? WHERE id = ? AND claim_token = ? AND queue = 'working' AND status = 'running'`,
    ).run(now, id, claimTokenHash(token));
    return changes === 1;
  }

  async releaseStale(now: number, staleBefore: number): Promise<RequestRecord[]> {
    const rows = this.sql(
      `UPDATE requests SET queue = 'queued', progress = ?, updated_at = ?, claim_token = NULL
         WHERE status = 'running' AND queue = 'working' AND heartbeat_at < ? RETURNING *`,
    ).all(QUEUED_PROGRESS_JSON, now, staleBefore) as RequestRow[];
    return rows.map(toRequest);
  }

  async requeueInterrupted(
    now: number,
    maxAttempts: number,
  ): Promise<{ requeued: RequestRecord[]; failed: RequestRecord[] }> {
    return this.db.transaction(() => {
      const rows = this.sql(`SELECT * FROM requests WHERE queue = 'working'`).all() as RequestRow[];
      const requeued: RequestRecord[] = [];
      const failed: RequestRecord[] = [];
      for (const row of rows) {
        const r = toRequest(row);
        if (r.inputKey && r.attempts < maxAttempts) {
          this.requeueNow(r.id, now);
          requeued.push(r);
        } else {
          failed.push(r);
        }
      }
      return { requeued, failed };
    })();
  }

  async requeue(id: string, now: number, token?: string): Promise<boolean> {
    return this.requeueNow(id, now, token);
  }

  private requeueNow(id: string, now: number, token?: string): boolean {
    const { changes } = this.sql(
      `UPDATE requests SET queue = 'queued', progress = ?, updated_at = ?, claim_token = NULL
         WHERE id = ? AND status = 'running' AND (? IS NULL OR claim_token = ?)`,
    ).run(
      QUEUED_PROGRESS_JSON,
      now,
      id,
      token ? claimTokenHash(token) : null,
      token ? claimTokenHash(token) : null,
    );
    return changes === 1;
  }

  async updateProgress(id: string, progress: Progress, now: number): Promise<void> {
    this.sql('UPDATE requests SET progress = ?, updated_at = ? WHERE id = ?').run(
      JSON.stringify(progress),
      now,
      id,
    );
  }

  async finishSucceeded(
    id: string,
    artifacts: readonly ArtifactRecord[],
    now: number,
    events?: TimelineEvent | readonly TimelineEvent[],
  ): Promise<boolean> {
    const insert = this.sql(
      `INSERT INTO artifacts (request_id, name, format, mime, size, sha256, blob_key, filename, position, expires_at, checks)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    return this.db.transaction(() => {
      const finished = this.sql(
        `UPDATE requests SET status = 'succeeded', queue = 'done', updated_at = ?, finished_at = ?,
             progress = json_set(progress, '$.percent', 100, '$.stage', 'done', '$.step', json_extract(progress, '$.steps'))
           WHERE id = ? AND status = 'running'`,
      ).run(now, now, id);
      if (finished.changes === 0) return false;
      for (const e of eventList(events)) this.insertEvent(id, e);
      artifacts.forEach((a, i) => {
        insert.run(...artifactValues(a, i));
      });
      return true;
    })();
  }

  async finishFailed(
    id: string,
    error: StoredError,
    now: number,
    events?: TimelineEvent | readonly TimelineEvent[],
  ): Promise<boolean> {
    return this.db.transaction(() => {
      const finished = this.sql(
        `UPDATE requests SET status = 'failed', queue = 'done', error_code = ?, error_message = ?, updated_at = ?,
           finished_at = ?, progress = json_set(progress, '$.stage', 'done') WHERE id = ? AND status = 'running'`,
      ).run(error.code, error.message, now, now, id);
      if (finished.changes === 0) return false;
      for (const e of eventList(events)) this.insertEvent(id, e);
      return true;
    })();
  }

  async clearInputKey(id: string): Promise<void> {
    this.sql('UPDATE requests SET input_key = NULL WHERE id = ?').run(id);
  }

  async addEvent(id: string, event: TimelineEvent): Promise<void> {
    this.insertEvent(id, event);
  }

  private insertEvent(id: string, event: TimelineEvent): void {
    this.sql('INSERT INTO events (request_id, at, kind, message) VALUES (?, ?, ?, ?)').run(
      id,
      event.at,
      event.kind,
      event.message,
    );
  }

  async timeline(id: string): Promise<TimelineEvent[]> {
    return this.sql('SELECT at, kind, message FROM events WHERE request_id = ? ORDER BY seq').all(
      id,
    ) as TimelineEvent[];
  }

  async artifacts(requestId: string): Promise<ArtifactRecord[]> {
    const rows = this.sql('SELECT * FROM artifacts WHERE request_id = ? ORDER BY position').all(
      requestId,
    ) as ArtifactRow[];
    return rows.map(toArtifact);
  }

  async artifact(requestId: string, name: string): Promise<ArtifactRecord | undefined> {
    const row = this.sql('SELECT * FROM artifacts WHERE request_id = ? AND name = ?').get(requestId, name) as
      | ArtifactRow
      | undefined;
    return row && toArtifact(row);
  }

  async dueArtifacts(now: number): Promise<ArtifactRecord[]> {
    const rows = this.sql(
      'SELECT * FROM artifacts WHERE expired = 0 AND expires_at <= ? ORDER BY expires_at',
    ).all(now) as ArtifactRow[];
    return rows.map(toArtifact);
  }

  async markExpired(requestId: string, name: string): Promise<boolean> {
    return (
      this.sql('UPDATE artifacts SET expired = 1 WHERE request_id = ? AND name = ? AND expired = 0').run(
        requestId,
        name,
      ).changes > 0
    );
  }

  async liveBlobKeys(): Promise<Set<string>> {
    const keys = new Set<string>();
    for (const r of this.sql('SELECT input_key, inputs FROM requests WHERE input_key IS NOT NULL').all() as {
      input_key: string | null;
      inputs: string | null;
    }[])
      for (const k of inputKeysOf(r)) keys.add(k);
    for (const r of this.sql('SELECT blob_key AS k FROM artifacts WHERE expired = 0').all() as {
      k: string;
    }[])
      keys.add(r.k);
    return keys;
  }

  async conversionCounts(since: number): Promise<ConversionCounts[]> {
    const rows = this.sql(
      `SELECT conversion AS key,
           sum(status = 'succeeded') AS s_all, sum(status = 'failed') AS f_all,
           sum(status = 'succeeded' AND finished_at >= @since) AS s_day,
           sum(status = 'failed' AND finished_at >= @since) AS f_day
         FROM requests WHERE kind = 'convert' AND status != 'running'
         GROUP BY conversion ORDER BY conversion`,
    ).all({ since }) as { key: string; s_all: number; f_all: number; s_day: number; f_day: number }[];
    const counts = (s: number, f: number): Counts => ({ total: s + f, succeeded: s, failed: f });
    return rows.map((r) => ({
      key: r.key,
      lastDay: counts(r.s_day, r.f_day),
      allTime: counts(r.s_all, r.f_all),
    }));
  }

  async saveWebhook(w: StoredWebhook): Promise<void> {
    this.sql('INSERT INTO webhooks (request_id, url, events, base_url) VALUES (?, ?, ?, ?)').run(
      w.requestId,
      w.url,
      JSON.stringify(w.events),
      w.baseUrl,
    );
  }

  async webhook(requestId: string): Promise<StoredWebhook | undefined> {
    const row = this.sql('SELECT url, events, base_url FROM webhooks WHERE request_id = ?').get(requestId) as
      | { url: string; events: string; base_url: string }
      | undefined;
    if (!row) return undefined;
    return { requestId, url: row.url, events: JSON.parse(row.events) as string[], baseUrl: row.base_url };
  }

  async checkWritable(): Promise<void> {
    this.sql('INSERT OR REPLACE INTO health (id, checked_at) VALUES (1, ?)').run(Date.now());
  }
}
