import type pg from 'pg';
import type { Progress } from '../run/types.js';
import { claimTokenHash } from './claim-token.js';
import { artifactValues } from './sqlite-schema.js';
import {
  type ArtifactRecord,
  eventList,
  type NewRequest,
  type StoredError,
  type TimelineEvent,
} from './types.js';

/** The writes of the PostgreSQL request store that run inside its transactions. */

type Queryable = pg.Pool | pg.PoolClient;

export const QUEUED_PROGRESS: Progress = { percent: 0, stage: 'queued', step: 0, steps: 0 };

export async function insertRequest(client: pg.PoolClient, r: NewRequest): Promise<void> {
  await client.query(
    `INSERT INTO requests (id, kind, status, conversion, from_format, to_format, options, filename, input_key,
       owner_hash, identity, queue, progress, report, quota_kind, quota_day, created_at, updated_at, finished_at, inputs, lane)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17, $18, $19, $20)`,
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
      r.inputs ? JSON.stringify(r.inputs) : null,
      r.lane ?? null,
    ],
  );
}

/** Artifacts in the order given (`position`), as the SQLite store keeps them. */
export async function insertArtifacts(
  client: pg.PoolClient,
  artifacts: readonly ArtifactRecord[],
): Promise<void> {
  for (const [i, a] of artifacts.entries()) {
    await client.query(
      `INSERT INTO artifacts (request_id, name, format, mime, size, sha256, blob_key, filename, position, expires_at, checks)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      artifactValues(a, i),
    );
  }
}

export async function insertEvent(db: Queryable, id: string, event: TimelineEvent): Promise<void> {
  await db.query('INSERT INTO events (request_id, at, kind, message) VALUES ($1, $2, $3, $4)', [
    id,
    event.at,
    event.kind,
    event.message,
  ]);
}

/**
 * Ends a request that is still running (locked for the rest of the transaction) with `outcome`
 * and its timeline events, its progress rewritten in JS so the JSON keeps its key order; false
 * when it had already finished (and then the event is not added either).
 */
export async function finishRunning(
  client: pg.PoolClient,
  id: string,
  now: number,
  outcome: {
    status: 'succeeded' | 'failed';
    error?: StoredError;
    events?: TimelineEvent | readonly TimelineEvent[];
  },
  finalProgress: (p: Progress) => Progress,
): Promise<boolean> {
  const { rows } = await client.query<{ progress: string }>(
    `SELECT progress FROM requests WHERE id = $1 AND status = 'running' FOR UPDATE`,
    [id],
  );
  const row = rows[0];
  if (!row) return false;
  const progress = finalProgress(JSON.parse(row.progress) as Progress);
  await client.query(
    `UPDATE requests SET status = $1, queue = 'done', error_code = $2, error_message = $3,
         updated_at = $4, finished_at = $4, progress = $5
       WHERE id = $6`,
    [
      outcome.status,
      outcome.error?.code ?? null,
      outcome.error?.message ?? null,
      now,
      JSON.stringify(progress),
      id,
    ],
  );
  for (const e of eventList(outcome.events)) await insertEvent(client, id, e);
  return true;
}

/** Back to the queue while running; with a token, only while that claim holds the request. */
export async function requeueOne(db: Queryable, id: string, now: number, token?: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE requests SET queue = 'queued', progress = $1, updated_at = $2, claim_token = NULL
       WHERE id = $3 AND status = 'running' AND ($4::text IS NULL OR claim_token = $4::text)`,
    [JSON.stringify(QUEUED_PROGRESS), now, id, token ? claimTokenHash(token) : null],
  );
  return rowCount === 1;
}
