import { type Insertable, sql } from 'kysely';
import type { Progress } from '../../run/types.js';
import { prepared } from './prepared.js';
import type { ArtifactsTable, RequestsTable } from './schema.js';

/**
 * The request store's queries on its hot paths (filing, status reads, claims, heartbeats,
 * progress, finishing), each built and compiled once per dialect (prepared.ts).
 */

export const QUEUED_PROGRESS = JSON.stringify({
  percent: 0,
  stage: 'queued',
  step: 0,
  steps: 0,
} satisfies Progress);

/** Every column a new request's row sets (schema.ts, requestRow). */
const REQUEST_COLUMNS = [
  'id',
  'kind',
  'status',
  'conversion',
  'from_format',
  'to_format',
  'options',
  'filename',
  'input_key',
  'owner_hash',
  'identity',
  'queue',
  'progress',
  'report',
  'quota_kind',
  'quota_day',
  'created_at',
  'updated_at',
  'finished_at',
  'inputs',
  'lane',
] as const;
const ARTIFACT_COLUMNS = [
  'request_id',
  'name',
  'format',
  'mime',
  'size',
  'sha256',
  'blob_key',
  'filename',
  'position',
  'expires_at',
  'checks',
] as const;
export type RequestValues = Required<Insertable<RequestsTable>>;
type ArtifactValues = Insertable<ArtifactsTable>;
const pick = <K extends string>(columns: readonly K[], from: Record<K, unknown>) =>
  Object.fromEntries(columns.map((c) => [c, from[c]]));

export const insertRequest = prepared((db, a: RequestValues) =>
  db.insertInto('requests').values(pick(REQUEST_COLUMNS, a) as RequestValues),
);
export const insertEvent = prepared((db, a: { id: string; at: number; kind: string; message: string }) =>
  db.insertInto('events').values({ request_id: a.id, at: a.at, kind: a.kind, message: a.message }),
);
export const insertArtifact = prepared((db, a: ArtifactValues) =>
  db.insertInto('artifacts').values(pick(ARTIFACT_COLUMNS, a as Record<string, unknown>) as ArtifactValues),
);
export const requestById = prepared((db, a: { id: string }) =>
  db.selectFrom('requests').selectAll().where('id', '=', a.id),
);
/** `fullLanes`: a JSON array of the lanes with no free slot, whose requests the claim passes over. */
export const claimNext = prepared((db, a: { now: number; fullLanes: string }, d) =>
  db
    .updateTable('requests')
    .set((eb) => ({ queue: 'working', attempts: eb('attempts', '+', 1), updated_at: a.now }))
    // SKIP LOCKED: two nodes claiming at once take different requests (SQLite writes one at a time).
    .where(
      'id',
      '=',
      d.forUpdate(
        db
          .selectFrom('requests')
          .select('id')
          .where('queue', '=', 'queued')
          .where(d.notInJsonList(sql.ref('lane'), a.fullLanes))
          .orderBy('created_at')
          .orderBy(sql.ref(d.insertionOrder))
          .limit(1),
        true,
      ),
    )
    .returningAll(),
);
export const claimOne = prepared(
  (
    db,
    a: { id: string; now: number; token: string | null; beat: number | null; staleBefore: number | null },
  ) =>
    db
      .updateTable('requests')
      .set((eb) => ({
        queue: 'working',
        attempts: eb('attempts', '+', 1),
        updated_at: a.now,
        claim_token: a.token,
        heartbeat_at: a.beat,
      }))
      .where('id', '=', a.id)
      .where('status', '=', 'running')
      .where((eb) => {
        const staleBefore = eb.cast<number | null>(eb.val(a.staleBefore), 'bigint');
        return eb.or([
          eb(staleBefore, 'is', null),
          eb('queue', '<>', 'working'),
          eb('heartbeat_at', 'is', null),
          eb('heartbeat_at', '<', staleBefore),
        ]);
      })
      .returningAll(),
);
export const beat = prepared((db, a: { id: string; token: string; now: number }) =>
  db
    .updateTable('requests')
    .set({ heartbeat_at: a.now })
    .where('id', '=', a.id)
    .where('claim_token', '=', a.token)
    .where('queue', '=', 'working')
    .where('status', '=', 'running'),
);
export const requeueById = prepared((db, a: { id: string; now: number; token: string | null }) =>
  db
    .updateTable('requests')
    .set({ queue: 'queued', progress: QUEUED_PROGRESS, updated_at: a.now, claim_token: null })
    .where('id', '=', a.id)
    .where('status', '=', 'running')
    .where((eb) => {
      const token = eb.cast<string | null>(eb.val(a.token), 'text');
      return eb.or([eb(token, 'is', null), eb('claim_token', '=', token)]);
    }),
);
export const setProgress = prepared((db, a: { id: string; progress: string; now: number }) =>
  db.updateTable('requests').set({ progress: a.progress, updated_at: a.now }).where('id', '=', a.id),
);
export const runningProgress = prepared((db, a: { id: string }, d) =>
  d.forUpdate(
    db
      .selectFrom('requests')
      .select(['progress', 'options'])
      .where('id', '=', a.id)
      .where('status', '=', 'running'),
  ),
);
export const finish = prepared(
  (
    db,
    a: {
      id: string;
      status: string;
      code: string | null;
      message: string | null;
      now: number;
      progress: string;
      options: string | null;
    },
  ) =>
    db
      .updateTable('requests')
      .set({
        status: a.status,
        queue: 'done',
        error_code: a.code,
        error_message: a.message,
        updated_at: a.now,
        finished_at: a.now,
        progress: a.progress,
        options: a.options,
      })
      .where('id', '=', a.id),
);
export const eventsOf = prepared((db, a: { id: string }) =>
  db.selectFrom('events').select(['at', 'kind', 'message']).where('request_id', '=', a.id).orderBy('seq'),
);
export const artifactsOf = prepared((db, a: { id: string }) =>
  db.selectFrom('artifacts').selectAll().where('request_id', '=', a.id).orderBy('position'),
);
export const artifactByName = prepared((db, a: { id: string; name: string }) =>
  db.selectFrom('artifacts').selectAll().where('request_id', '=', a.id).where('name', '=', a.name),
);
