import ipaddr from 'ipaddr.js';

/** Request headers as Node gives them, or a fetch-style Headers object (hono's c.req.raw.headers). */
export type HeaderSource =
  | { get(name: string): string | null | undefined }
  | Record<string, string | string[] | undefined>;

/**
 * The client's IP address. Without trustProxy it is always the socket's address: forwarded
 * headers are written by the client and anyone could claim any address. With trustProxy (the
 * server sits behind a proxy that sets these headers), the left-most address of `Forwarded: for=`
 * or else `X-Forwarded-For` is taken, when it is a valid IP; otherwise the socket's address.
 * IPv4-mapped IPv6 forms are unwrapped so one client has one spelling.
 */
export function clientIp(
  socketAddress: string | undefined,
  headers: HeaderSource,
  trustProxy: boolean,
): string {
  const fallback = normalizeIp(socketAddress ?? '') ?? socketAddress ?? 'unknown';
  if (!trustProxy) return fallback;
  const forwarded = firstForwardedFor(header(headers, 'forwarded'));
  if (forwarded) return forwarded;
  const xff = header(headers, 'x-forwarded-for')?.split(',')[0];
  return nodeAddress(xff) ?? fallback;
}

/**
 * The key anonymous limits are counted under: an IPv4 address as it is, an IPv6 address by its
 * /64 (one subscriber usually holds a whole /64 and could otherwise rotate through it).
 */
export function anonymousIdentity(ip: string): string {
  const parsed = ipaddr.isValid(ip) ? ipaddr.process(ip) : undefined;
  if (!parsed) return `ip:${ip}`;
  if (parsed.kind() === 'ipv4') return `ip:${parsed.toString()}`;
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `ip:${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}

/** Addresses already normalised: a busy server sees the same few peers on every request. */
const normalized = new Map<string, string | undefined>();
const NORMALIZED_MAX = 4096;

/** Canonical text of an IP (unwrapping ::ffff:a.b.c.d), or undefined when `text` is none. */
export function normalizeIp(text: string): string | undefined {
  if (normalized.has(text)) return normalized.get(text);
  const result = parseNormalized(text);
  if (normalized.size >= NORMALIZED_MAX) normalized.clear();
  normalized.set(text, result);
  return result;
}

function parseNormalized(text: string): string | undefined {
  const trimmed = text.trim();
  if (!ipaddr.isValid(trimmed)) return undefined;
  // isValid accepts legacy spellings like "127.1"; forwarded headers only carry dotted quads.
  if (!ipaddr.IPv6.isValid(trimmed) && !ipaddr.IPv4.isValidFourPartDecimal(trimmed)) return undefined;
  return ipaddr.process(trimmed).toString();
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** RFC 7239: `for=192.0.2.60;proto=http, for="[2001:db8::1]:4711"` -> the first element's for. */
function firstForwardedFor(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const first = value.split(',')[0] ?? '';
  for (const pair of first.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim().toLowerCase() !== 'for') continue;
    return nodeAddress(pair.slice(eq + 1));
  }
  return undefined;
}

/** A node as proxies write it: `"[v6]:port"`, `[v6]`, `v4:port`, `v4`, bare v6; else undefined. */
function nodeAddress(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let node = value.trim();
  if (node.startsWith('"') && node.endsWith('"')) node = node.slice(1, -1);
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(node);
  if (bracketed) return normalizeIp(bracketed[1]!);
  // A bare IPv6 address has several colons; only an IPv4 address carries a single ":port".
  return normalizeIp(node) ?? normalizeIp(node.replace(/^([\d.]+):\d+$/, '$1'));
}
