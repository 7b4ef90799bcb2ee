import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { FileconvError } from '../errors/index.js';
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
};

/** A whole number from min to max, written as text. */
function wholeNumber(min: number, max: number) {
  return z
    .string()
    .regex(/^\s*\d+\s*$/, { error: (iss) => `must be a whole number, got "${iss.input}"` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: (iss) => `must be between ${min} and ${max}, got ${iss.input}` })
        .max(max, { error: (iss) => `must be between ${min} and ${max}, got ${iss.input}` }),
    );
}

/** A text value read by `read`, which returns the value or, for a bad one, the problem. */
function readText<T>(read: (value: string) => T | { problem: string }) {
  return z.string().transform((value, ctx) => {
    const out = read(value);
    if (typeof out === 'object' && out !== null && 'problem' in out) {
      ctx.addIssue({ code: 'custom', message: out.problem, input: value });
      return z.NEVER;
    }
    return out as T;
  });
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

/** A byte size such as `209715200`, `200MiB`, `512k` (binary units). */
const size = readText((value) => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined)
    return { problem: `must be a size like 209715200, 200MiB or 512k, got "${value}"` };
  const bytes = Math.floor(Number(m[1]) * unit);
  return bytes < 1 ? { problem: 'must be at least 1 byte' } : bytes;
});

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  '': 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A duration such as `24h`, `90m`, `3600` (seconds), `500ms`, in ms. */
const duration = readText((value) => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|)\s*$/i.exec(value);
  if (!m) return { problem: `must be a duration like 24h, 90m, 3600s or 500ms, got "${value}"` };
  const ms = Math.floor(Number(m[1]) * DURATION_UNITS[m[2]!.toLowerCase()]!);
  return ms < 1 ? { problem: 'must be longer than 0' } : ms;
});

const publicUrl = readText((value) => {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url) return { problem: `must be an absolute http(s) URL, got "${value}"` };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'must use http or https' };
  return url.href.replace(/\/+$/, '');
});

const flag = readText((value) => {
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return { problem: `must be true or false, got "${value}"` };
});

const downloadMode = readText(
  (value) =>
    DOWNLOAD_MODES.find((m) => m === value.trim().toLowerCase()) ?? {
      problem: `must be ${DOWNLOAD_MODES.join(' or ')}, got "${value}"`,
    },
);

const quotaCount = wholeNumber(0, 1_000_000_000);

/**
 * `conversions=20,voice=3,file_checks=30`; names left out keep their default, so `voice=0` alone
 * only turns voice off.
 */
function quotas(defaults: DailyQuotas) {
  return readText((value): DailyQuotas | { problem: string } => {
    const out = { ...defaults };
    for (const item of value.split(',')) {
      if (item.trim() === '') continue;
      const m = /^\s*([a-z_-]+)\s*=\s*(\S+)\s*$/i.exec(item);
      const key = m?.[1]?.toLowerCase().replace(/-/g, '_');
      if (!m || !key || !(key in out))
        return {
          problem: `must look like "conversions=20,voice=3,file_checks=30", got "${value.slice(0, 80)}"`,
        };
      const count = quotaCount.safeParse(m[2]!);
      if (!count.success) return { problem: `${key} ${count.error.issues[0]!.message}` };
      out[key as keyof DailyQuotas] = count.data;
    }
    return out;
  });
}

/**
 * The options as flags and environment variables give them (text; a bare flag's true as "true"),
 * each read into its typed value; an option left unset stays undefined.
 */
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
});

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
  };
}
