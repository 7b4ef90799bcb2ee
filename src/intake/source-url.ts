import { FileconvError } from '../errors/index.js';

/** Longest source URL accepted; longer ones are almost certainly not a file address. */
export const MAX_SOURCE_URL_LENGTH = 8192;

/**
 * Parses a user-given source URL: http or https, a host, and no credentials (a URL carrying a
 * password would leak it into logs and redirects). Anything else is INVALID_SOURCE_URL.
 */
export function parseSourceUrl(text: unknown): URL {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new FileconvError('INVALID_SOURCE_URL', 'source_url is empty.');
  }
  if (text.length > MAX_SOURCE_URL_LENGTH) {
    throw new FileconvError(
      'INVALID_SOURCE_URL',
      `source_url is longer than ${MAX_SOURCE_URL_LENGTH} characters.`,
    );
  }
  const url = URL.canParse(text.trim()) ? new URL(text.trim()) : undefined;
  if (!url) throw new FileconvError('INVALID_SOURCE_URL', 'source_url is not a valid URL.');
  checkFetchableUrl(url, 'INVALID_SOURCE_URL');
  return url;
}

/** The shape rules every hop must meet; `code` says how to report a breach. */
export function checkFetchableUrl(url: URL, code: 'INVALID_SOURCE_URL' | 'SOURCE_URL_FETCH_FAILED'): void {
  const problem =
    url.protocol !== 'http:' && url.protocol !== 'https:'
      ? `uses ${url.protocol.replace(/:$/, '')}, not http or https`
      : url.username !== '' || url.password !== ''
        ? 'carries a user name or password'
        : url.hostname === ''
          ? 'has no host'
          : undefined;
  if (!problem) return;
  const subject = code === 'INVALID_SOURCE_URL' ? 'source_url' : 'The source URL redirected to a URL that';
  throw new FileconvError(code, `${subject} ${problem}.`);
}
