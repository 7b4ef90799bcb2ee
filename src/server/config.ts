import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { FileconvError } from '../errors/index.js';
import { parseS3Url } from '../store/s3-settings.js';
import type { UploadPace } from './upload-pace.js';

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
  /** The pace an upload must keep (src/server/upload-pace.ts). */
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
}

export const DOWNLOAD_MODES = ['signed', 'presigned'] as const;
export type DownloadMode = (typeof DOWNLOAD_MODES)[number];

/** Units per UTC day of each metered operation. */
export interface DailyQuotas {
  conversions: number;
  voice: number;
  file_checks: number;
}

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
}

export const DEFAULT_MAX_UPLOAD = 200 * 1024 * 1024;
/** An upload gets 30 s, plus 1 s per 4 KiB received (a 200 MiB upload may take up to about 14 h). */
export const DEFAULT_UPLOAD_PACE: UploadPace = { timeoutMs: 30_000, minRate: 4096 };
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
};

function invalid(message: string): FileconvError {
  return new FileconvError('INVALID_REQUEST', message);
}

function integer(name: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value.trim())) throw invalid(`${name} must be a whole number, got "${value}".`);
  const n = Number(value);
  if (n < min || n > max) throw invalid(`${name} must be between ${min} and ${max}, got ${n}.`);
  return n;
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/** Parses a byte size such as `209715200`, `200MiB`, `512k` (binary units). */
export function parseSize(name: string, value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined)
    throw invalid(`${name} must be a size like 209715200, 200MiB or 512k, got "${value}".`);
  const bytes = Math.floor(Number(m[1]) * unit);
  if (bytes < 1) throw invalid(`${name} must be at least 1 byte.`);
  return bytes;
}

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  '': 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Parses a duration such as `24h`, `90m`, `3600` (seconds), `500ms`. */
export function parseDuration(name: string, value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|)\s*$/i.exec(value);
  if (!m) throw invalid(`${name} must be a duration like 24h, 90m, 3600s or 500ms, got "${value}".`);
  const ms = Math.floor(Number(m[1]) * DURATION_UNITS[m[2]!.toLowerCase()]!);
  if (ms < 1) throw invalid(`${name} must be longer than 0.`);
  return ms;
}

function publicUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`--public-url must be an absolute http(s) URL, got "${value}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid('--public-url must use http or https.');
  return url.href.replace(/\/+$/, '');
}

function downloadMode(value: string): DownloadMode {
  const mode = DOWNLOAD_MODES.find((m) => m === value.trim().toLowerCase());
  if (!mode) throw invalid(`--downloads must be ${DOWNLOAD_MODES.join(' or ')}, got "${value}".`);
  return mode;
}

function databaseUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {}
  if (!url || !['postgres:', 'postgresql:'].includes(url.protocol) || !url.hostname)
    throw invalid(
      `--database must be a postgres://user:password@host:port/database URL, got "${redacted(value)}".`,
    );
  return value;
}

/** A URL as an error message may show it: without its password. */
function redacted(value: string): string {
  return value.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

/** Checked here (bucket and prefix rules) so a bad URL stops the start, not the first upload. */
function storageUrl(value: string): string {
  parseS3Url(value);
  return value.trim();
}

function boolean(name: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw invalid(`${name} must be true or false, got "${value}".`);
}

/**
 * Parses `conversions=20,voice=3,file_checks=30`; names left out keep their default, so
 * `voice=0` alone only turns voice off.
 */
export function parseQuotas(name: string, value: string, defaults: DailyQuotas): DailyQuotas {
  const quotas = { ...defaults };
  for (const item of value.split(',')) {
    if (item.trim() === '') continue;
    const m = /^\s*([a-z_-]+)\s*=\s*(\S+)\s*$/i.exec(item);
    const key = m?.[1]?.toLowerCase().replace(/-/g, '_');
    if (!m || !key || !(key in quotas))
      throw invalid(
        `${name} must look like "conversions=20,voice=3,file_checks=30", got "${value.slice(0, 80)}".`,
      );
    quotas[key as keyof DailyQuotas] = integer(`${name} ${key}`, m[2]!, 0, 1_000_000_000);
  }
  return quotas;
}

/** Flags win over environment variables, which win over defaults. */
export function resolveServeConfig(
  flags: RawServeOptions,
  env: NodeJS.ProcessEnv = process.env,
): ServeConfig {
  const pick = (k: keyof RawServeOptions): string | undefined => {
    const v = flags[k] ?? env[ENV_NAMES[k]];
    return v === undefined || v === '' ? undefined : String(v);
  };
  const host = pick('host') ?? '127.0.0.1';
  const port = pick('port');
  const dataDir = pick('dataDir') ?? './fileconv-data';
  const concurrency = pick('concurrency');
  const maxUpload = pick('maxUpload');
  const retention = pick('retention');
  const maxQueued = pick('maxQueued');
  const grace = pick('shutdownGrace');
  const url = pick('publicUrl');
  const trustProxy = pick('trustProxy');
  const rateLimit = pick('rateLimit');
  const quotaAnon = pick('quotaAnon');
  const quotaKey = pick('quotaKey');
  const uploadTimeout = pick('uploadTimeout');
  const uploadMinRate = pick('uploadMinRate');
  const idleTimeout = pick('idleTimeout');
  const downloads = pick('downloads');
  const database = pick('database');
  const storage = pick('storage');
  const worker = pick('worker');
  const mode = downloads === undefined ? 'signed' : downloadMode(downloads);
  if (mode === 'presigned' && storage === undefined)
    throw invalid('--downloads presigned needs S3 storage (--storage s3://bucket/prefix).');
  return {
    host,
    port: port === undefined ? 8080 : integer('--port', port, 0, 65535),
    dataDir: resolve(dataDir),
    publicUrl: url === undefined ? undefined : publicUrl(url),
    concurrency:
      concurrency === undefined ? Math.max(1, cpus().length) : integer('--concurrency', concurrency, 1, 256),
    maxUpload: maxUpload === undefined ? DEFAULT_MAX_UPLOAD : parseSize('--max-upload', maxUpload),
    retentionMs: retention === undefined ? 24 * 3_600_000 : parseDuration('--retention', retention),
    maxQueued: maxQueued === undefined ? 100 : integer('--max-queued', maxQueued, 1, 1_000_000),
    shutdownGraceMs: grace === undefined ? 30_000 : parseDuration('--shutdown-grace', grace),
    sweepIntervalMs: 60_000,
    trustProxy: trustProxy === undefined ? false : boolean('--trust-proxy', trustProxy),
    rateLimit:
      rateLimit === undefined ? DEFAULT_RATE_LIMIT : integer('--rate-limit', rateLimit, 0, 1_000_000),
    quotas: {
      anonymous:
        quotaAnon === undefined
          ? { ...DEFAULT_QUOTAS.anonymous }
          : parseQuotas('--quota-anon', quotaAnon, DEFAULT_QUOTAS.anonymous),
      key:
        quotaKey === undefined
          ? { ...DEFAULT_QUOTAS.key }
          : parseQuotas('--quota-key', quotaKey, DEFAULT_QUOTAS.key),
    },
    uploadPace: {
      timeoutMs:
        uploadTimeout === undefined
          ? DEFAULT_UPLOAD_PACE.timeoutMs
          : parseDuration('--upload-timeout', uploadTimeout),
      minRate:
        uploadMinRate === undefined
          ? DEFAULT_UPLOAD_PACE.minRate
          : parseSize('--upload-min-rate', uploadMinRate),
    },
    idleTimeoutMs:
      idleTimeout === undefined ? DEFAULT_IDLE_TIMEOUT_MS : parseDuration('--idle-timeout', idleTimeout),
    downloads: mode,
    database: database === undefined ? undefined : databaseUrl(database),
    storage: storage === undefined ? undefined : storageUrl(storage),
    worker: worker === undefined ? true : boolean('--worker', worker),
  };
}
