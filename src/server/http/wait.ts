import type { RequestRecord } from '../../store/types.js';
import type { ServerContext } from '../context.js';
import { parseOrThrow } from './schemas/issues.js';
import { waitQuerySchema } from './schemas/query.js';

/** How often a long-poll reads the request again when nothing in this process woke it. */
const LOOK_AGAIN_MS = 1_000;

/** Longest long-poll on a request, in seconds; kept under common proxy idle timeouts. */
export const MAX_READ_WAIT_SECONDS = 30;
/** Longest wait on submit, in seconds: a conversion may take a while, and the client asked to hold on. */
export const MAX_SUBMIT_WAIT_SECONDS = 60;

// Built once per limit: making a zod schema costs more than a whole poll answer.
const waitSchemas = new Map<number, ReturnType<typeof waitQuerySchema>>();

/** The `wait` query parameter in ms: absent means 0 (answer now); anything but 0..max is refused. */
export function waitMs(raw: string | undefined, maxSeconds: number): number {
  let schema = waitSchemas.get(maxSeconds);
  if (!schema) {
    schema = waitQuerySchema(maxSeconds);
    waitSchemas.set(maxSeconds, schema);
  }
  return (parseOrThrow(schema, raw, { root: 'wait' }) ?? 0) * 1000;
}

/**
 * Holds until request `id` is no longer running or `ms` pass (or the client hangs up), woken by the
 * queue's change signal; the store is read again after each wake and stays the source of truth.
 */
export async function awaitEnd(
  ctx: ServerContext,
  id: string,
  ms: number,
  gone: AbortSignal,
): Promise<RequestRecord | undefined> {
  let r = await ctx.store.getRequest(id);
  if (ms <= 0) return r;
  const until = Date.now() + ms;
  while (r?.status === 'running' && Date.now() < until && !gone.aborted) {
    // Woken at once by this process's queue, or by another node's NOTIFY (JobQueue.onChange); the
    // next look catches a signal that was lost.
    await ctx.queue.changes.waitFor(id, Math.min(until - Date.now(), LOOK_AGAIN_MS), gone);
    r = await ctx.store.getRequest(id);
  }
  return r;
}
