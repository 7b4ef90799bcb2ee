import { type Kysely, sql } from 'kysely';
import type { Progress } from '../../run/types.js';
import { claimTokenHash } from '../claim-token.js';
import { withoutSealed } from '../sealed-values.js';
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
} from '../types.js';
import type { SqlDialect } from './dialect.js';
import {
  artifactByName,
  artifactsOf,
  beat,
  claimNext,
  claimOne,
  eventsOf,
  finish,
  insertArtifact,
  insertEvent,
  insertRequest,
  QUEUED_PROGRESS,
  type RequestValues,
  requestById,
  requeueById,
  runningProgress,
  setProgress,
} from './request-queries.js';
import { artifactRow, inputKeysOf, requestRow, type Schema, toArtifact, toRequest } from './schema.js';

type Db = Kysely<Schema>;

/**
 * RequestStore on SQLite or PostgreSQL. Every state change that a second process or node could
 * race (claim, finish, requeue) is conditional on the request's status, checked in one statement
 * or under the row's lock, so a duplicate delivery of a job finds the request finished and
 * stores nothing twice.
 */
export class SqlRequestStore implements RequestStore {
  constructor(
    private readonly db: Db,
    private readonly d: SqlDialect,
  ) {}

  async createRequest(r: NewRequest, events: readonly TimelineEvent[]): Promise<void> {
    const row = requestRow(r) as RequestValues;
    if (events.length === 0) {
      await insertRequest(this.db, this.d, row);
      return;
    }
    await this.d.transaction(this.db, async (trx) => {
      await insertRequest(trx, this.d, row);
      await this.insertEvents(trx, r.id, events);
    });
  }

  async getRequest(id: string): Promise<RequestRecord | undefined> {
    const [row] = (await requestById(this.db, this.d, { id })).rows;
    return row && toRequest(row);
  }

  async recentByOwner(ownerHash: string, limit: number): Promise<RequestRecord[]> {
    const rows = await this.db
      .selectFrom('requests')
      .selectAll()
      .where('owner_hash', '=', ownerHash)
      .orderBy('created_at', 'desc')
      .orderBy(sql.ref(this.d.insertionOrder), 'desc')
      .limit(limit)
      .execute();
    return rows.map(toRequest);
  }

  async countQueued(): Promise<number> {
    const row = await this.db
      .selectFrom('requests')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('queue', '=', 'queued')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async claimNextQueued(now: number, fullLanes: readonly string[] = []): Promise<RequestRecord | undefined> {
    const [row] = (await claimNext(this.db, this.d, { now, fullLanes: JSON.stringify(fullLanes) })).rows;
    return row && toRequest(row);
  }

  async claim(id: string, now: number, ticket?: ClaimTicket): Promise<RequestRecord | undefined> {
    // Two workers claiming at once: the second UPDATE waits for the first's row lock, then checks
    // its condition against the row the first left (working, fresh heartbeat) and changes nothing.
    const [row] = (
      await claimOne(this.db, this.d, {
        id,
        now,
        token: ticket ? claimTokenHash(ticket.token) : null,
        beat: ticket ? now : null,
        staleBefore: ticket?.staleBefore ?? null,
      })
    ).rows;
    return row && toRequest(row);
  }

  async heartbeat(id: string, token: string, now: number): Promise<boolean> {
    const { numAffectedRows } = await beat(this.db, this.d, { id, token: claimTokenHash(token), now });
    return numAffectedRows === 1n;
  }

  async releaseStale(now: number, staleBefore: number): Promise<RequestRecord[]> {
    // Sweepers on several workers at once: each row's lock makes one of them change it; the others
    // find it queued when they get the lock, and skip it.
    const rows = await this.db
      .updateTable('requests')
      .set({ queue: 'queued', progress: QUEUED_PROGRESS, updated_at: now, claim_token: null })
      .where('status', '=', 'running')
      .where('queue', '=', 'working')
      .where('heartbeat_at', '<', staleBefore)
      .returningAll()
      .execute();
    return rows.map(toRequest);
  }

  async requeueInterrupted(
    now: number,
    maxAttempts: number,
  ): Promise<{ requeued: RequestRecord[]; failed: RequestRecord[] }> {
    return this.d.transaction(this.db, async (trx) => {
      const rows = await this.d
        .forUpdate(
          trx
            .selectFrom('requests')
            .selectAll()
            .where('queue', '=', 'working')
            .orderBy('created_at')
            .orderBy(sql.ref(this.d.insertionOrder)),
        )
        .execute();
      const requeued: RequestRecord[] = [];
      const failed: RequestRecord[] = [];
      for (const r of rows.map(toRequest)) {
        if (r.inputKey && r.attempts < maxAttempts) {
          await this.requeueOne(trx, r.id, now);
          requeued.push(r);
        } else {
          failed.push(r);
        }
      }
      return { requeued, failed };
    });
  }

  async requeue(id: string, now: number, token?: string): Promise<boolean> {
    return this.requeueOne(this.db, id, now, token);
  }

  /** Back to the queue while running; with a token, only while that claim holds the request. */
  private async requeueOne(db: Db, id: string, now: number, token?: string): Promise<boolean> {
    const hash = token ? claimTokenHash(token) : null;
    const { numAffectedRows } = await requeueById(db, this.d, { id, now, token: hash });
    return numAffectedRows === 1n;
  }

  async updateProgress(id: string, progress: Progress, now: number): Promise<void> {
    await setProgress(this.db, this.d, { id, progress: JSON.stringify(progress), now });
  }

  async finishSucceeded(
    id: string,
    artifacts: readonly ArtifactRecord[],
    now: number,
    events?: TimelineEvent | readonly TimelineEvent[],
  ): Promise<boolean> {
    return this.d.transaction(this.db, async (trx) => {
      const finished = await this.finishRunning(trx, id, now, { status: 'succeeded', events }, (p) => ({
        ...p,
        percent: 100,
        stage: 'done',
        step: p.steps,
      }));
      if (finished)
        for (const [i, a] of artifacts.entries()) await insertArtifact(trx, this.d, artifactRow(a, i));
      return finished;
    });
  }

  async finishFailed(
    id: string,
    error: StoredError,
    now: number,
    events?: TimelineEvent | readonly TimelineEvent[],
  ): Promise<boolean> {
    return this.d.transaction(this.db, (trx) =>
      this.finishRunning(trx, id, now, { status: 'failed', error, events }, (p) => ({
        ...p,
        stage: 'done',
      })),
    );
  }

  /**
   * Inside a transaction: ends a request that is still running (locked for the rest of the
   * transaction) with `outcome` and its timeline events, its progress rewritten here so the JSON
   * keeps its key order and its sealed option values (passwords) dropped; false when it had already finished (and then no event is added either).
   */
  private async finishRunning(
    trx: Db,
    id: string,
    now: number,
    outcome: {
      status: 'succeeded' | 'failed';
      error?: StoredError;
      events?: TimelineEvent | readonly TimelineEvent[];
    },
    finalProgress: (p: Progress) => Progress,
  ): Promise<boolean> {
    const [row] = (await runningProgress(trx, this.d, { id })).rows;
    if (!row) return false;
    await finish(trx, this.d, {
      id,
      status: outcome.status,
      code: outcome.error?.code ?? null,
      message: outcome.error?.message ?? null,
      now,
      progress: JSON.stringify(finalProgress(JSON.parse(row.progress) as Progress)),
      // A password is kept no longer than its request runs, whichever way it ends.
      options: withoutSealed(row.options),
    });
    await this.insertEvents(trx, id, eventList(outcome.events));
    return true;
  }

  private async insertEvents(db: Db, id: string, events: readonly TimelineEvent[]): Promise<void> {
    for (const e of events) await insertEvent(db, this.d, { id, at: e.at, kind: e.kind, message: e.message });
  }

  async clearInputKey(id: string): Promise<void> {
    await this.db.updateTable('requests').set({ input_key: null }).where('id', '=', id).execute();
  }

  async endedWithInput(): Promise<RequestRecord[]> {
    // Found through requests_input (rows that hold an input: the running ones, and these).
    const rows = await this.db
      .selectFrom('requests')
      .selectAll()
      .where('input_key', 'is not', null)
      .where('status', '<>', 'running')
      .execute();
    return rows.map(toRequest);
  }

  async addEvent(id: string, event: TimelineEvent): Promise<void> {
    await this.insertEvents(this.db, id, [event]);
  }

  async timeline(id: string): Promise<TimelineEvent[]> {
    return (await eventsOf(this.db, this.d, { id })).rows;
  }

  async artifacts(requestId: string): Promise<ArtifactRecord[]> {
    return (await artifactsOf(this.db, this.d, { id: requestId })).rows.map(toArtifact);
  }

  async artifact(requestId: string, name: string): Promise<ArtifactRecord | undefined> {
    const [row] = (await artifactByName(this.db, this.d, { id: requestId, name })).rows;
    return row && toArtifact(row);
  }

  async dueArtifacts(now: number): Promise<ArtifactRecord[]> {
    const rows = await this.db
      .selectFrom('artifacts')
      .selectAll()
      .where('expired', '=', 0)
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .execute();
    return rows.map(toArtifact);
  }

  async markExpired(requestId: string, name: string): Promise<boolean> {
    const { numUpdatedRows } = await this.db
      .updateTable('artifacts')
      .set({ expired: 1 })
      .where('request_id', '=', requestId)
      .where('name', '=', name)
      .where('expired', '=', 0)
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }

  async liveBlobKeys(): Promise<Set<string>> {
    const inputs = await this.db
      .selectFrom('requests')
      .select(['input_key', 'inputs'])
      .where('input_key', 'is not', null)
      .execute();
    const artifacts = await this.db
      .selectFrom('artifacts')
      .select('blob_key')
      .where('expired', '=', 0)
      .execute();
    return new Set([...inputs.flatMap(inputKeysOf), ...artifacts.map((r) => r.blob_key)]);
  }

  async conversionCounts(since: number): Promise<ConversionCounts[]> {
    const rows = await this.db
      .selectFrom('requests')
      .select((eb) => [
        'conversion',
        eb.fn.countAll<number>().filterWhere('status', '=', 'succeeded').as('s_all'),
        eb.fn.countAll<number>().filterWhere('status', '=', 'failed').as('f_all'),
        eb.fn
          .countAll<number>()
          .filterWhere((f) => f.and([f('status', '=', 'succeeded'), f('finished_at', '>=', since)]))
          .as('s_day'),
        eb.fn
          .countAll<number>()
          .filterWhere((f) => f.and([f('status', '=', 'failed'), f('finished_at', '>=', since)]))
          .as('f_day'),
      ])
      .where('kind', '=', 'convert')
      .where('status', '!=', 'running')
      .groupBy('conversion')
      .execute();
    const counts = (s: number, f: number): Counts => ({ total: s + f, succeeded: s, failed: f });
    // Sorted here, by code unit (byte order for these ASCII keys), whatever the database's collation.
    return rows
      .map((r) => ({
        key: r.conversion as string,
        lastDay: counts(Number(r.s_day), Number(r.f_day)),
        allTime: counts(Number(r.s_all), Number(r.f_all)),
      }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async saveWebhook(w: StoredWebhook): Promise<void> {
    await this.db
      .insertInto('webhooks')
      .values({ request_id: w.requestId, url: w.url, events: JSON.stringify(w.events), base_url: w.baseUrl })
      .execute();
  }

  async webhook(requestId: string): Promise<StoredWebhook | undefined> {
    const row = await this.db
      .selectFrom('webhooks')
      .select(['url', 'events', 'base_url'])
      .where('request_id', '=', requestId)
      .executeTakeFirst();
    return (
      row && { requestId, url: row.url, events: JSON.parse(row.events) as string[], baseUrl: row.base_url }
    );
  }

  async checkWritable(): Promise<void> {
    await this.db
      .insertInto('health')
      .values({ id: 1, checked_at: Date.now() })
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({ checked_at: eb.ref('excluded.checked_at') })),
      )
      .execute();
  }
}
