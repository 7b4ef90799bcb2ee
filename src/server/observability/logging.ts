import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { MiddlewareHandler } from 'hono';
import { type DestinationStream, type Level, type Logger, pino } from 'pino';
import type { AppEnv } from '../context.js';
import { routeLabel } from '../http/route-label.js';
import type { ConversionEnd, QueueObserver } from './conversion-trace.js';

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = Level | 'silent';

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields every line has; the pretty format shows them in its prefix instead. */
const PREFIX_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/**
 * One line per record for a person at a terminal: `12:00:01 INFO  http 202 POST /api/... 35 ms`,
 * then the remaining fields as key=value. Small enough not to need pino-pretty and its worker thread.
 */
export function prettyStream(out: NodeJS.WritableStream): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      pending += chunk.toString('utf8');
      let nl = pending.indexOf('\n');
      while (nl >= 0) {
        out.write(`${prettyLine(pending.slice(0, nl))}\n`);
        pending = pending.slice(nl + 1);
        nl = pending.indexOf('\n');
      }
      done();
    },
  });
}

function prettyLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = new Date(Number(record.time)).toISOString().slice(11, 19);
  const level = (LEVEL_NAMES[Number(record.level)] ?? String(record.level)).padEnd(5);
  const rest = Object.entries(record)
    .filter(([k]) => !PREFIX_FIELDS.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${time} ${level} ${String(record.msg ?? '')}${rest ? ` ${rest}` : ''}`;
}

/** The server's logger: JSON lines (for collectors) or the pretty format (for a terminal). */
export function createLogger(opts: {
  format: LogFormat;
  level: LogLevel;
  destination?: NodeJS.WritableStream;
}): Logger {
  const out = opts.destination ?? process.stderr;
  let stream: NodeJS.WritableStream | DestinationStream = out;
  if (opts.format === 'pretty') stream = prettyStream(out);
  // JSON to stderr goes through pino's own asynchronous writer: a line per HTTP answer written
  // synchronously was a tenth of a busy server's time. Lines written while one write is under way
  // go out together in the next; pino flushes what is left when the process exits.
  else if (!opts.destination) stream = pino.destination({ dest: 2, sync: false });
  return pino(
    { level: opts.level, base: undefined, timestamp: pino.stdTimeFunctions.epochTime },
    stream as DestinationStream,
  );
}

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * One line per HTTP answer: request id, method, route pattern, status, duration and the kind of
 * caller. No key, token, query string or IP is logged: they identify people or grant access.
 * A well-formed X-Request-Id from a proxy is kept (and echoed) so lines can be joined across hops.
 */
export function httpLogMiddleware(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const requestId = httpRequestId(c.req.header('x-request-id'));
    await next();
    c.res.headers.set('X-Request-Id', requestId);
    logHttpAnswer(logger, {
      requestId,
      method: c.req.method,
      route: routeLabel(c),
      status: c.res.status,
      started,
      identity: c.get('identity')?.kind ?? 'unknown',
      error: c.error && 'code' in c.error ? String(c.error.code) : undefined,
    });
  };
}

/** The id an answer carries in X-Request-Id: the proxy's when well formed, else a new one. */
export function httpRequestId(sent: string | undefined): string {
  return sent && CLIENT_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/** The `http` log line of one answer; `started` is `performance.now()` when the request came in. */
export function logHttpAnswer(
  logger: Logger,
  a: {
    requestId: string;
    method: string;
    route: string;
    status: number;
    started: number;
    identity: string;
    error?: string;
  },
): void {
  logger.info(
    {
      request_id: a.requestId,
      method: a.method,
      route: a.route,
      status: a.status,
      duration_ms: Math.round(performance.now() - a.started),
      identity: a.identity,
      ...(a.error ? { error: a.error } : {}),
    },
    'http',
  );
}

/** One line per conversion that ended: key, engines, outcome, duration. */
export function conversionLog(logger: Logger): QueueObserver {
  return {
    ended(end: ConversionEnd) {
      const r = end.request;
      logger[end.outcome === 'succeeded' ? 'info' : 'warn'](
        {
          request_id: r.id,
          conversion: r.conversion,
          engines: end.engines,
          outcome: end.outcome,
          duration_ms: end.durationMs,
          ...(r.error ? { error: r.error.code } : {}),
        },
        'conversion',
      );
    },
  };
}
