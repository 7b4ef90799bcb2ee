import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { FileconvError } from '../errors/index.js';
import type { UploadPace } from '../intake/upload-pace.js';
import { parseS3Url } from '../store/s3-settings.js';
import { deploymentSecret } from './access/secrets.js';
import {
  type DailyQuotas,
  duration,
  engineNames,
  flag,
  publicUrl,
  quotas,
  readText,
  size,
  wholeNumber,
} from './config-values.js';

/** The server's configuration, validated once at the edge and trusted everywhere after. */
export interface ServeConfig {
  host: string;
  port: number;
  dataDir: string;
  /** Base URL used in artifact and download links; undefined means "from the Host header". */
  publicUrl: string | undefined;
  /** Conversions running at once. */
  concurrency: number;
  /** Largest accepted upload, in bytes. */
  maxUpload: number;
  /** How long results are kept, in ms. */
  retentionMs: number;
  /** Most requests waiting in the queue before writes answer 503. */
  maxQueued: number;
  /** How long SIGTERM waits for running conversions, in ms. */
  shutdownGraceMs: number;
  /** How often the retention sweeper runs, in ms. */
  sweepIntervalMs: number;
  /** Take the client IP from Forwarded / X-Forwarded-For (only behind a proxy that overwrites them). */
  trustProxy: boolean;
  /** Writes (POST detect/convert) per minute per client IP; 0 turns the limit off. */
  rateLimit: number;
  /** Daily quotas of anonymous callers (per IP) and of each API key. */
  quotas: { anonymous: DailyQuotas; key: DailyQuotas };
  /** The pace an upload must keep (src/intake/upload-pace.ts). */
  uploadPace: UploadPace;
  /** A connection that neither sends nor takes a byte for this long is closed, in ms. */
  idleTimeoutMs: number;
  /**
   * How signed download links deliver a file: streamed by this server (`signed`), or redirected to
   * the blob store's own presigned URL (`presigned`, S3 only).
   */
  downloads: DownloadMode;
  /** Where the records are: a `postgres://` URL, or undefined for SQLite in the data directory. */
  database: string | undefined;
  /** Where the files are: an `s3://bucket/prefix` URL, or undefined for the data directory. */
  storage: string | undefined;
  /** Whether this process runs conversions (`serve --no-worker`: the API only). */
  worker: boolean;
  /** Engines a node that runs conversions starts at once, instead of on its first conversion. */
  warm: string[];
  /**
   * With the PostgreSQL queue: how long a worker holds a job before it is presumed dead and the job
   * is delivered again, in ms. A backstop: the heartbeat decides when a worker is dead.
   */
  jobLeaseMs: number;
  /**
   * With the PostgreSQL queue: a conversion whose worker sent no heartbeat for this long goes to
   * another worker, whatever the lease, in ms. Workers beat every sixth of it.
   */
  heartbeatLimitMs: number;
  /**
   * The longest a conversion may run once a worker started it, all its steps and a merge's inputs
   * together, in ms; past it the request fails with CONVERT_FAILED. Each step also keeps its own limit.
   */
  requestDeadlineMs: number;
}

export const DOWNLOAD_MODES = ['signed', 'presigned'] as const;
export type DownloadMode = (typeof DOWNLOAD_MODES)[number];

export type { DailyQuotas } from './config-values.js';

/** api.md's numbers: anonymous tier L1 and API key tier L2b. */
export const DEFAULT_QUOTAS: ServeConfig['quotas'] = {
  anonymous: { conversions: 20, voice: 3, file_checks: 30 },
  key: { conversions: 500, voice: 20, file_checks: 300 },
};
export const DEFAULT_RATE_LIMIT = 30;

/** Raw values as they come from flags or the environment (strings, or undefined when unset). */
export interface RawServeOptions {
  host?: string;
  port?: string;
  dataDir?: string;
  publicUrl?: string;
  concurrency?: string;
  maxUpload?: string;
  retention?: string;
  maxQueued?: string;
  shutdownGrace?: string;
  trustProxy?: string | boolean;
  rateLimit?: string;
  quotaAnon?: string;
  quotaKey?: string;
  uploadTimeout?: string;
  uploadMinRate?: string;
  idleTimeout?: string;
  downloads?: string;
  database?: string;
  storage?: string;
  worker?: string | boolean;
  warm?: string;
  jobLease?: string;
  heartbeatLimit?: string;
  requestDeadline?: string;
}

export const DEFAULT_MAX_UPLOAD = 200 * 1024 * 1024;
/** An upload gets 30 s, plus 1 s per 4 KiB received (a 200 MiB upload may take up to about 14 h). */
export const DEFAULT_UPLOAD_PACE: UploadPace = { timeoutMs: 30_000, minRate: 4096 };
/** Long enough for a busy database or a long GC pause, short enough that failover takes well under a minute. */
export const DEFAULT_HEARTBEAT_LIMIT_MS = 30_000;
/** Past the longest one-step conversion (OCR of a long PDF, 10 min) with room for a long merge. */
export const DEFAULT_REQUEST_DEADLINE_MS = 30 * 60_000;
/** Longer than the longest long-poll (?wait=30), so only a dead or stalled client is cut. */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/** Environment variable of each option. */
export const ENV_NAMES: Record<keyof RawServeOptions, string> = {
  host: 'FILECONV_HOST',
  port: 'FILECONV_PORT',
  dataDir: 'FILECONV_DATA_DIR',
  publicUrl: 'FILECONV_PUBLIC_URL',
  concurrency: 'FILECONV_CONCURRENCY',
  maxUpload: 'FILECONV_MAX_UPLOAD',
  retention: 'FILECONV_RETENTION',
  maxQueued: 'FILECONV_MAX_QUEUED',
  shutdownGrace: 'FILECONV_SHUTDOWN_GRACE',
  trustProxy: 'FILECONV_TRUST_PROXY',
  rateLimit: 'FILECONV_RATE_LIMIT',
  quotaAnon: 'FILECONV_QUOTA_ANON',
  quotaKey: 'FILECONV_QUOTA_KEY',
  uploadTimeout: 'FILECONV_UPLOAD_TIMEOUT',
  uploadMinRate: 'FILECONV_UPLOAD_MIN_RATE',
  idleTimeout: 'FILECONV_IDLE_TIMEOUT',
  downloads: 'FILECONV_DOWNLOADS',
  database: 'FILECONV_DATABASE_URL',
  storage: 'FILECONV_STORAGE',
  worker: 'FILECONV_WORKER',
  warm: 'FILECONV_WARM',
  jobLease: 'FILECONV_JOB_LEASE',
  heartbeatLimit: 'FILECONV_HEARTBEAT_LIMIT',
  requestDeadline: 'FILECONV_REQUEST_DEADLINE',
};

/** The flag of each option, which error messages name (the environment variable says the same). */
const FLAGS: Record<keyof RawServeOptions, string> = {
  host: '--host',
  port: '--port',
  dataDir: '--data-dir',
  publicUrl: '--public-url',
  concurrency: '--concurrency',
  maxUpload: '--max-upload',
  retention: '--retention',
  maxQueued: '--max-queued',
  shutdownGrace: '--shutdown-grace',
  trustProxy: '--trust-proxy',
  rateLimit: '--rate-limit',
  quotaAnon: '--quota-anon',
  quotaKey: '--quota-key',
  uploadTimeout: '--upload-timeout',
  uploadMinRate: '--upload-min-rate',
  idleTimeout: '--idle-timeout',
  downloads: '--downloads',
  database: '--database',
  storage: '--storage',
  worker: '--worker',
  warm: '--warm',
  jobLease: '--job-lease',
  heartbeatLimit: '--heartbeat-limit',
  requestDeadline: '--request-deadline',
};

const downloadMode = readText(
  (value) =>
    DOWNLOAD_MODES.find((m) => m === value.trim().toLowerCase()) ?? {
      problem: `must be ${DOWNLOAD_MODES.join(' or ')}, got "${value}"`,
    },
);

/**
 * The options as flags and environment variables give them (text; a bare flag's true as "true"),
 * each read into its typed value; an option left unset stays undefined. Every option needs its
 * reader here (the `satisfies` makes a new one without it fail to compile).
 */
/** A URL as an error message may show it: without its password. */
function redacted(value: string): string {
  return value.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

const databaseUrl = readText((value) => {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !['postgres:', 'postgresql:'].includes(url.protocol) || !url.hostname)
    return { problem: `must be a postgres://user:password@host:port/database URL, got "${redacted(value)}"` };
  return value;
});

/** Checked here (bucket and prefix rules) so a bad URL stops the start, not the first upload. */
const storageUrl = readText((value) => {
  try {
    parseS3Url(value);
  } catch (e) {
    return { problem: (e as Error).message.replace(/^--storage /, '').replace(/\.$/, '') };
  }
  return value.trim();
});

const rawServeSchema = z.object({
  host: z.string().optional(),
  port: wholeNumber(0, 65535).optional(),
  dataDir: z.string().optional(),
  publicUrl: publicUrl.optional(),
  concurrency: wholeNumber(1, 256).optional(),
  maxUpload: size.optional(),
  retention: duration.optional(),
  maxQueued: wholeNumber(1, 1_000_000).optional(),
  shutdownGrace: duration.optional(),
  trustProxy: flag.optional(),
  rateLimit: wholeNumber(0, 1_000_000).optional(),
  quotaAnon: quotas(DEFAULT_QUOTAS.anonymous).optional(),
  quotaKey: quotas(DEFAULT_QUOTAS.key).optional(),
  uploadTimeout: duration.optional(),
  uploadMinRate: size.optional(),
  idleTimeout: duration.optional(),
  downloads: downloadMode.optional(),
  database: databaseUrl.optional(),
  storage: storageUrl.optional(),
  worker: flag.optional(),
  warm: engineNames.optional(),
  jobLease: duration.optional(),
  heartbeatLimit: duration.optional(),
  requestDeadline: duration.optional(),
} satisfies Record<keyof RawServeOptions, z.ZodType>);

/** Checks `value` against `schema`; a failure names the flag, like `--port must be between 0 and 65535, got 70000.` */
function parseOption<S extends z.ZodType>(schema: S, value: unknown, name: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? FLAGS[issue.path[0] as keyof RawServeOptions] : name;
  throw new FileconvError('INVALID_REQUEST', `${where} ${issue.message}.`);
}

/** Reads quotas like `conversions=20,voice=3`, over `defaults`. */
export function parseQuotas(name: string, value: string, defaults: DailyQuotas): DailyQuotas {
  return parseOption(quotas(defaults), value, name);
}

/** Flags win over environment variables, which win over defaults. */
export function resolveServeConfig(
  flags: RawServeOptions,
  env: NodeJS.ProcessEnv = process.env,
): ServeConfig {
  const given = Object.fromEntries(
    (Object.keys(ENV_NAMES) as (keyof RawServeOptions)[]).flatMap((k) => {
      const v = flags[k] ?? env[ENV_NAMES[k]];
      return v === undefined || v === '' ? [] : [[k, String(v)]];
    }),
  );
  const o = parseOption(rawServeSchema, given, 'configuration');
  // Read where it is used (access/secrets.ts); checked here too, so a weak one stops the start.
  deploymentSecret(env);
  if (o.downloads === 'presigned' && o.storage === undefined)
    throw new FileconvError(
      'INVALID_REQUEST',
      '--downloads presigned needs S3 storage (--storage s3://bucket/prefix).',
    );
  if (o.heartbeatLimit !== undefined && o.heartbeatLimit < 1_000)
    throw new FileconvError(
      'INVALID_REQUEST',
      `--heartbeat-limit must be at least 1s (workers beat every sixth of it), got ${o.heartbeatLimit}ms.`,
    );
  return {
    host: o.host ?? '127.0.0.1',
    port: o.port ?? 8080,
    dataDir: resolve(o.dataDir ?? './fileconv-data'),
    publicUrl: o.publicUrl,
    concurrency: o.concurrency ?? Math.max(1, cpus().length),
    maxUpload: o.maxUpload ?? DEFAULT_MAX_UPLOAD,
    retentionMs: o.retention ?? 24 * 3_600_000,
    maxQueued: o.maxQueued ?? 100,
    shutdownGraceMs: o.shutdownGrace ?? 30_000,
    sweepIntervalMs: 60_000,
    trustProxy: o.trustProxy ?? false,
    rateLimit: o.rateLimit ?? DEFAULT_RATE_LIMIT,
    quotas: {
      anonymous: o.quotaAnon ?? { ...DEFAULT_QUOTAS.anonymous },
      key: o.quotaKey ?? { ...DEFAULT_QUOTAS.key },
    },
    uploadPace: {
      timeoutMs: o.uploadTimeout ?? DEFAULT_UPLOAD_PACE.timeoutMs,
      minRate: o.uploadMinRate ?? DEFAULT_UPLOAD_PACE.minRate,
    },
    idleTimeoutMs: o.idleTimeout ?? DEFAULT_IDLE_TIMEOUT_MS,
    downloads: o.downloads ?? 'signed',
    database: o.database,
    storage: o.storage,
    worker: o.worker ?? true,
    warm: o.warm ?? [],
    jobLeaseMs: o.jobLease ?? 15 * 60_000,
    heartbeatLimitMs: o.heartbeatLimit ?? DEFAULT_HEARTBEAT_LIMIT_MS,
    requestDeadlineMs: o.requestDeadline ?? DEFAULT_REQUEST_DEADLINE_MS,
  };
}
