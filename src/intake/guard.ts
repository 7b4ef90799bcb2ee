import { lookup } from 'node:dns/promises';
import { FileconvError } from '../errors/index.js';
import { classifyAddress, isIpLiteral, isLocalName, stripBrackets } from './address.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (the default asks the system resolver). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** What an allowance predicate is asked about: one non-public address a hop would reach. */
export interface PrivateTarget {
  url: URL;
  hostname: string;
  port: number;
  address: string;
  range: string;
}

/**
 * `true` lifts the public-address rule altogether (the CLI fetching from the user's own network).
 * A predicate decides per non-public address; it exists for tests, which allow exactly their own
 * loopback origin while every other hop, redirects included, is still checked.
 */
export type PrivateAllowance = boolean | ((target: PrivateTarget) => boolean);

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * Checks where `url` would connect and returns the one address to connect to. Every address the
 * host resolves to must pass, so a name that answers with a public and a private address is
 * refused whichever the connection would have picked.
 */
export async function checkHost(
  url: URL,
  opts: { resolver: Resolver; allowPrivate: PrivateAllowance; signal: AbortSignal },
): Promise<string> {
  const hostname = stripBrackets(url.hostname);
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const allowed = (address: string, range: string): boolean =>
    opts.allowPrivate === true ||
    (typeof opts.allowPrivate === 'function' && opts.allowPrivate({ url, hostname, port, address, range }));

  if (!isIpLiteral(hostname) && isLocalName(hostname) && !allowed(hostname, 'localName')) {
    throw blocked('a local host name');
  }
  const addresses = isIpLiteral(hostname)
    ? [hostname]
    : await resolveAll(hostname, opts.resolver, opts.signal);
  for (const address of addresses) {
    const verdict = classifyAddress(address);
    if (!verdict.public && !allowed(address, verdict.range)) throw blocked(`a ${verdict.range} address`);
  }
  return addresses[0]!;
}

function blocked(what: string): FileconvError {
  return new FileconvError(
    'SOURCE_URL_BLOCKED',
    `The source URL points at ${what}; only public internet addresses can be fetched.`,
  );
}

async function resolveAll(hostname: string, resolver: Resolver, signal: AbortSignal): Promise<string[]> {
  let answers: ResolvedAddress[];
  try {
    answers = await abortable(resolver(hostname), signal);
  } catch (e) {
    if (signal.aborted) throw e;
    throw new FileconvError(
      'SOURCE_URL_FETCH_FAILED',
      `The source URL host ${hostname} could not be resolved.`,
      {
        cause: e,
      },
    );
  }
  const addresses = answers.map((a) => a.address).filter((a) => typeof a === 'string' && a !== '');
  if (addresses.length === 0) {
    throw new FileconvError('SOURCE_URL_FETCH_FAILED', `The source URL host ${hostname} has no address.`);
  }
  return addresses;
}

/** System lookups cannot be cancelled; stop waiting for one when the fetch is aborted. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
