import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerContext } from '../context.js';
import { httpRequestId, logHttpAnswer } from '../observability/logging.js';
import { baseUrlFor } from './views.js';
import { MAX_READ_WAIT_SECONDS } from './wait.js';

/** The one route this path answers, as the routes, logs and metrics name it. */
export const POLL_ROUTE = '/api/public/requests/:id';
const POLL_PATH = /^\/api\/public\/requests\/([A-Za-z0-9_-]+)(?:\?wait=(\d{1,2}))?$/;

/**
 * Answers a poll of a finished request from its kept answer (finished-answers.ts) straight on the
 * node socket, before the request is adapted for Hono and goes through its middleware chain: polls
 * of ended conversions are most of a busy server's traffic, and the adapter and chain cost about as
 * much again as the answer itself. Returns false, touching nothing, for anything it does not answer
 * exactly as the chain would, which then takes the request:
 * - other methods, paths, or query strings (a `wait` the route would refuse, extra parameters);
 * - callers with an `Authorization` header: a key must be looked up (and a bad one refused);
 * - requests whose answer is not kept (running, unknown, or rendered for another base URL).
 * What it answers carries the same headers, log line and request count as the chain's answer.
 */
export function keptPollAnswerer(ctx: ServerContext): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'GET' || req.headers.authorization !== undefined) return false;
    const m = POLL_PATH.exec(req.url ?? '');
    if (!m || (m[2] !== undefined && Number(m[2]) > MAX_READ_WAIT_SECONDS)) return false;
    const started = performance.now();
    const body = ctx.finishedAnswers.get(m[1]!, baseUrlFor(req.headers.host, ctx.config));
    if (!body) return false;
    const header = req.headers['x-request-id'];
    const requestId = httpRequestId(typeof header === 'string' ? header : undefined);
    res.writeHead(200, {
      'cache-control': 'no-store',
      'content-type': 'application/json',
      'x-request-id': requestId,
      'content-length': body.byteLength,
    });
    res.end(body);
    ctx.metrics.countAnswer('GET', POLL_ROUTE, 200);
    logHttpAnswer(ctx.logger, {
      requestId,
      method: 'GET',
      route: POLL_ROUTE,
      status: 200,
      started,
      identity: 'anonymous',
    });
    return true;
  };
}
