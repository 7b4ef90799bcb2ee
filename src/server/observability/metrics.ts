import { timingSafeEqual } from 'node:crypto';
import type { Hono, MiddlewareHandler } from 'hono';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { FileconvError, isFileconvError } from '../../errors/index.js';
import type { AppEnv, IdentityResolver } from '../http/app-env.js';
import { routeLabel } from '../http/route-label.js';
import type { ConversionEnd, QueueObserver } from './conversion-trace.js';

/** Seconds: conversions range from a CSV in milliseconds to a long video in minutes. */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/**
 * The server's Prometheus metrics. Each server instance has its own registry (several servers may
 * share one process, as in the tests), so nothing goes to prom-client's global registry.
 */
export class ServerMetrics implements QueueObserver {
  readonly registry = new Registry();
  private readonly httpRequests = new Counter({
    name: 'fileconv_http_requests_total',
    help: 'HTTP requests by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly conversions = new Counter({
    name: 'fileconv_conversions_total',
    help: 'Conversions that ended, by conversion key and outcome.',
    labelNames: ['conversion', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly conversionSeconds = new Histogram({
    name: 'fileconv_conversion_duration_seconds',
    help: 'Time from a conversion starting to its end, by conversion key and outcome.',
    labelNames: ['conversion', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly engineStepSeconds = new Histogram({
    name: 'fileconv_engine_step_duration_seconds',
    help: 'Time of one engine running one step of a conversion, by engine and outcome.',
    labelNames: ['engine', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly uploaded = new Counter({
    name: 'fileconv_uploaded_bytes_total',
    help: 'Bytes of files received by detect and convert (uploads and fetched source URLs).',
    registers: [this.registry],
  });
  private readonly served = new Counter({
    name: 'fileconv_served_bytes_total',
    help: 'Bytes of artifacts sent by the file server.',
    registers: [this.registry],
  });
  private readonly quotaRefusals = new Counter({
    name: 'fileconv_quota_refusals_total',
    help: 'Writes refused because a daily quota was used up, by route.',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });

  /** With a token, `GET /metrics` answers only `Authorization: Bearer <token>`. */
  constructor(
    queue: { depth(): Promise<number>; readonly active: number },
    private readonly token: string | undefined,
  ) {
    new Gauge({
      name: 'fileconv_queue_depth',
      help: 'Conversions waiting to start.',
      registers: [this.registry],
      async collect() {
        this.set(await queue.depth());
      },
    });
    new Gauge({
      name: 'fileconv_conversions_running',
      help: 'Conversions running in this process.',
      registers: [this.registry],
      collect() {
        this.set(queue.active);
      },
    });
  }

  ended(end: ConversionEnd): void {
    const labels = { conversion: end.request.conversion ?? 'unknown', outcome: end.outcome };
    this.conversions.inc(labels);
    this.conversionSeconds.observe(labels, end.durationMs / 1000);
    for (const s of end.steps)
      this.engineStepSeconds.observe({ engine: s.engine, outcome: s.outcome }, s.durationMs / 1000);
  }

  receivedFile(bytes: number): void {
    this.uploaded.inc(bytes);
  }

  /** One HTTP answer in `fileconv_http_requests_total`. */
  countAnswer(method: string, route: string, status: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
  }

  /** Counts every answer under its route pattern (never the raw path, which would explode the label set). */
  middleware(): MiddlewareHandler<AppEnv> {
    return async (c, next) => {
      await next();
      const route = routeLabel(c);
      const status = c.res.status;
      this.countAnswer(c.req.method, route, status);
      if (isFileconvError(c.error) && c.error.code === 'QUOTA_EXCEEDED') this.quotaRefusals.inc({ route });
      if (route === '/files/:opaque' && (status === 200 || status === 206) && c.req.method === 'GET') {
        const length = Number(c.res.headers.get('content-length'));
        if (Number.isFinite(length)) this.served.inc(length);
      }
    };
  }

  /**
   * `GET /metrics`. Mounted before the identity middleware: the metrics token is not an API key,
   * and a scraper should not need one.
   */
  mount(app: Hono<AppEnv>, identity: IdentityResolver): void {
    const expected = this.token ? Buffer.from(this.token) : undefined;
    app.get('/metrics', async (c) => {
      const scraper = expected !== undefined && bearerMatches(c.req.header('authorization'), expected);
      // Any other Bearer value is an API key, and an unknown one is refused as everywhere.
      if (!scraper) await identity(c);
      if (expected && !scraper) {
        c.header('WWW-Authenticate', 'Bearer realm="metrics"');
        throw new FileconvError('METRICS_TOKEN_REQUIRED');
      }
      c.header('Cache-Control', 'no-store');
      return c.body(await this.registry.metrics(), 200, { 'Content-Type': this.registry.contentType });
    });
  }
}

/** Compares in constant time, so the answer's timing tells nothing about the token. */
function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1]!);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
