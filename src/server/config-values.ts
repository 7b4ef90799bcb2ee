import { z } from 'zod';

/** Units per UTC day of each metered operation. */
export interface DailyQuotas {
  conversions: number;
  voice: number;
  file_checks: number;
}

/**
 * Readers of configuration values as flags and environment variables write them (text), each a
 * zod schema that yields the typed value or an issue saying what was expected.
 */

/** A whole number from min to max, written as text. */
export function wholeNumber(min: number, max: number) {
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
export function readText<T>(read: (value: string) => T | { problem: string }) {
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
export const size = readText((value) => {
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
export const duration = readText((value) => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|)\s*$/i.exec(value);
  if (!m) return { problem: `must be a duration like 24h, 90m, 3600s or 500ms, got "${value}"` };
  const ms = Math.floor(Number(m[1]) * DURATION_UNITS[m[2]!.toLowerCase()]!);
  return ms < 1 ? { problem: 'must be longer than 0' } : ms;
});

export const publicUrl = readText((value) => {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url) return { problem: `must be an absolute http(s) URL, got "${value}"` };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'must use http or https' };
  return url.href.replace(/\/+$/, '');
});

export const flag = readText((value) => {
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return { problem: `must be true or false, got "${value}"` };
});

const quotaCount = wholeNumber(0, 1_000_000_000);

/**
 * `conversions=20,voice=3,file_checks=30`; names left out keep their default, so `voice=0` alone
 * only turns voice off.
 */
export function quotas(defaults: DailyQuotas) {
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
 * Engine names separated by commas (`chromium,libreoffice`), or `none`. Whether each names an
 * installed engine is known only once the engines load (server.ts checks it at start).
 */
export const engineNames = readText((value) => {
  const v = value.trim().toLowerCase();
  if (v === 'none' || v === '') return [] as string[];
  const names = v.split(',').map((n) => n.trim());
  const bad = names.find((n) => !/^[a-z0-9-]+$/.test(n));
  if (bad !== undefined) return { problem: `must be engine names separated by commas, got "${value}"` };
  return [...new Set(names)];
});
