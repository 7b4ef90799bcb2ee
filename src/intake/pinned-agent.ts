import { Agent, buildConnector } from 'undici';

/**
 * An undici Agent that connects only to addresses checked beforehand: `pinned` maps each host
 * name (as in the URL, without IPv6 brackets) to the address that passed the checks. The
 * connection goes to that address while the Host header and the TLS server name (SNI, and the
 * certificate check) stay the URL's host name. A host with no pinned address is never connected.
 */
export function createPinnedAgent(
  pinned: ReadonlyMap<string, string>,
  connectTimeoutMs: number,
  totalTimeoutMs: number,
) {
  const connectTo = buildConnector({ timeout: connectTimeoutMs });
  const connect: buildConnector.connector = (options, callback) => {
    const address = pinned.get(options.hostname);
    if (!address) {
      callback(new Error(`refusing to connect to unchecked host ${options.hostname}`), null);
      return;
    }
    // `host` keeps the original name: undici derives the TLS server name from it.
    return connectTo({ ...options, hostname: address }, callback);
  };
  return new Agent({ connect, headersTimeout: totalTimeoutMs, bodyTimeout: totalTimeoutMs });
}

/** A short, client-safe reason for a network failure (undici wraps the cause in "fetch failed"). */
export function describeNetworkError(e: unknown): string {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
  const code = (cause as { code?: unknown })?.code;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'the connection timed out';
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host is unreachable';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'the server stopped answering';
    default:
      if (
        typeof code === 'string' &&
        /^(ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_SSL)/.test(code)
      ) {
        return 'its TLS certificate could not be verified';
      }
      return typeof code === 'string' ? code : 'network error';
  }
}
