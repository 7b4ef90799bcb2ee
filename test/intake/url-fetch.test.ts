import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FileconvError } from '../../src/errors/index.js';
import { type FetchToFileOptions, fetchToFile } from '../../src/intake/url.js';
import { allowOnlyPort, closeServer, startCanary, startOrigin, stubResolver } from './servers.js';

let origin: Awaited<ReturnType<typeof startOrigin>>;
let canary: Awaited<ReturnType<typeof startCanary>>;
const dests: string[] = [];
const hangingResponses = new Set<() => void>();

const ZEROS = Buffer.alloc(100_000);
const PAYLOAD = Buffer.from('%PDF-1.4\nnot really a pdf, just bytes from the origin\n');

beforeAll(async () => {
  canary = await startCanary();
  origin = await startOrigin((req, res) => {
    const url = new URL(req.url ?? '/', 'http://origin');
    const path = url.pathname;
    if (path === '/report') {
      res.setHeader('content-type', 'application/pdf; charset=binary');
      res.setHeader(
        'content-disposition',
        `attachment; filename="fallback.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`,
      );
      res.end(PAYLOAD);
    } else if (path === '/echo-host/data.txt') {
      res.setHeader('content-type', 'text/plain');
      res.end(`host=${req.headers.host}`);
    } else if (path === '/evil-name') {
      res.setHeader('content-disposition', 'attachment; filename="../../../tmp/escape.sh"');
      res.end('#!/bin/sh\n');
    } else if (path === '/gzip/zeros.bin') {
      res.setHeader('content-encoding', 'gzip');
      res.end(gzipSync(ZEROS));
    } else if (path === '/big-chunked.bin') {
      // No Content-Length: the cap has to be enforced while streaming.
      let sent = 0;
      const more = () => {
        while (sent < 1_000_000) {
          sent += 10_000;
          if (!res.write(Buffer.alloc(10_000, 1))) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    } else if (path === '/big-declared.bin') {
      res.setHeader('content-length', String(5_000_000));
      res.write(Buffer.alloc(1000));
      hangingResponses.add(() => res.destroy());
    } else if (path === '/missing') {
      res.statusCode = 404;
      res.end('not here');
    } else if (path === '/empty') {
      res.end();
    } else if (path === '/hang-headers') {
      hangingResponses.add(() => res.destroy());
    } else if (path === '/hang-body/part.bin') {
      res.setHeader('content-length', '100000');
      res.write(Buffer.alloc(5000, 2));
      hangingResponses.add(() => res.destroy());
    } else if (path === '/redirect-relative') {
      res.writeHead(302, { location: '/report' }).end();
    } else if (path.startsWith('/chain/')) {
      const n = Number(path.slice('/chain/'.length));
      if (n === 0) res.end('end of chain');
      else res.writeHead(307, { location: `/chain/${n - 1}` }).end();
    } else if (path === '/redirect') {
      res.writeHead(301, { location: url.searchParams.get('to') ?? '/' }).end();
    } else {
      res.statusCode = 500;
      res.end();
    }
  });
});

afterEach(() => {
  for (const release of hangingResponses) release();
  hangingResponses.clear();
  for (const dir of dests.splice(0)) rmSync(dir, { recursive: true, force: true });
});

afterAll(async () => {
  await closeServer(origin.server);
  await closeServer(canary.server);
});

function freshDest(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fileconv-fetch-'));
  dests.push(dir);
  return dir;
}

/** Only the test origin's port is allowed through; every other target (redirects too) is checked. */
function fromOrigin(extra: FetchToFileOptions = {}): FetchToFileOptions {
  return { allowPrivate: allowOnlyPort(origin.port), resolver: stubResolver({}), ...extra };
}

async function failure(promise: Promise<unknown>): Promise<FileconvError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FileconvError);
  return err as FileconvError;
}

describe('fetchToFile from a loopback origin (test-only allowance)', () => {
  it('saves the body under the Content-Disposition name', async () => {
    const dir = freshDest();
    const got = await fetchToFile(`${origin.base}/report`, dir, fromOrigin());
    expect(got.filename).toBe('résumé.pdf');
    expect(got.path).toBe(join(dir, 'résumé.pdf'));
    expect(got.contentType).toBe('application/pdf');
    expect(got.size).toBe(PAYLOAD.length);
    expect(got.finalUrl).toBe(`${origin.base}/report`);
    expect(readFileSync(got.path).equals(PAYLOAD)).toBe(true);
  });

  it('connects to the checked address while sending the original Host header', async () => {
    // The name exists only in the stub: a second, system lookup at connect time would fail.
    const resolver = stubResolver({ 'files.example.test': ['127.0.0.1'] });
    const got = await fetchToFile(
      `http://files.example.test:${origin.port}/echo-host/data.txt`,
      freshDest(),
      {
        allowPrivate: allowOnlyPort(origin.port),
        resolver,
      },
    );
    expect(readFileSync(got.path, 'utf8')).toBe(`host=files.example.test:${origin.port}`);
    expect(got.filename).toBe('data.txt');
    expect(resolver.asked).toEqual(['files.example.test']);
  });

  it('keeps the original host name as the TLS server name', async () => {
    const names: string[] = [];
    const tls = createTlsServer({
      SNICallback: (name, cb) => {
        names.push(name);
        cb(new Error('this server has no certificate'), undefined as never);
      },
    });
    tls.on('tlsClientError', () => {});
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const { port } = tls.address() as AddressInfo;
    try {
      const err = await failure(
        fetchToFile(`https://secure.example.test:${port}/x.pdf`, freshDest(), {
          allowPrivate: allowOnlyPort(port),
          resolver: stubResolver({ 'secure.example.test': ['127.0.0.1'] }),
        }),
      );
      expect(err.code).toBe('SOURCE_URL_FETCH_FAILED');
      expect(names).toEqual(['secure.example.test']);
    } finally {
      await closeServer(tls);
    }
  });

  it('sanitises a hostile Content-Disposition name into the destination folder', async () => {
    const dir = freshDest();
    const got = await fetchToFile(`${origin.base}/evil-name`, dir, fromOrigin());
    expect(got.path).toBe(join(dir, 'escape.sh'));
    expect(readdirSync(dir)).toEqual(['escape.sh']);
  });

  it('does not overwrite an existing file of the same name', async () => {
    const dir = freshDest();
    const first = await fetchToFile(`${origin.base}/report`, dir, fromOrigin());
    const second = await fetchToFile(`${origin.base}/report`, dir, fromOrigin());
    expect(second.path).not.toBe(first.path);
    expect(readdirSync(dir).sort()).toEqual(['résumé-2.pdf', 'résumé.pdf']);
  });

  it('counts a gzip body by its decoded bytes', async () => {
    const ok = await fetchToFile(
      `${origin.base}/gzip/zeros.bin`,
      freshDest(),
      fromOrigin({ maxBytes: 200_000 }),
    );
    expect(ok.size).toBe(ZEROS.length);
    expect(readFileSync(ok.path).equals(ZEROS)).toBe(true);

    const dir = freshDest();
    // The compressed body is a few hundred bytes; decoded it is 100 kB, over the cap.
    const err = await failure(
      fetchToFile(`${origin.base}/gzip/zeros.bin`, dir, fromOrigin({ maxBytes: 50_000 })),
    );
    expect(err.code).toBe('SOURCE_URL_FETCH_FAILED');
    expect(err.message).toMatch(/too large/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('aborts a streamed body past the cap and removes the partial file', async () => {
    const dir = freshDest();
    const err = await failure(
      fetchToFile(`${origin.base}/big-chunked.bin`, dir, fromOrigin({ maxBytes: 100_000 })),
    );
    expect(err.code).toBe('SOURCE_URL_FETCH_FAILED');
    expect(err.message).toMatch(/too large/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a declared Content-Length over the cap up front', async () => {
    const dir = freshDest();
    const err = await failure(
      fetchToFile(`${origin.base}/big-declared.bin`, dir, fromOrigin({ maxBytes: 100_000 })),
    );
    expect(err.message).toMatch(/too large/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reports a non-2xx answer as a fetch failure', async () => {
    const dir = freshDest();
    const err = await failure(fetchToFile(`${origin.base}/missing`, dir, fromOrigin()));
    expect(err.code).toBe('SOURCE_URL_FETCH_FAILED');
    expect(err.message).toMatch(/404/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reports an empty body as a fetch failure', async () => {
    const dir = freshDest();
    const err = await failure(fetchToFile(`${origin.base}/empty`, dir, fromOrigin()));
    expect(err.code).toBe('SOURCE_URL_FETCH_FAILED');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('gives up on an origin that never answers at the total deadline', async () => {
    const err = await failure(
      fetchToFile(`${origin.base}/hang-headers`, freshDest(), fromOrigin({ totalTimeoutMs: 300 })),
    );
    expect(err.code).toBe('SOURCE_URL_FETCH_FAILED');
    expect(err.message).toMatch(/did not finish/);
  });

  it('gives up on a body that stalls and removes the partial file', async () => {
    const dir = freshDest();
    const err = await failure(
      fetchToFile(`${origin.base}/hang-body/part.bin`, dir, fromOrigin({ totalTimeoutMs: 500 })),
    );
    expect(err.code).toBe('SOURCE_URL_FETCH_FAILED');
    expect(err.message).toMatch(/did not finish/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = fetchToFile(
      `${origin.base}/hang-headers`,
      freshDest(),
      fromOrigin({ signal: controller.signal }),
    );
    setTimeout(() => controller.abort(), 50);
    const err = await failure(pending);
    expect(err.code).toBe('SOURCE_URL_FETCH_FAILED');
    expect(err.message).toMatch(/cancelled/);
  });

  it('reports a refused connection as a fetch failure', async () => {
    const closed = await startOrigin(() => {});
    const port = closed.port;
    await closeServer(closed.server);
    const err = await failure(
      fetchToFile(`http://127.0.0.1:${port}/x`, freshDest(), {
        allowPrivate: allowOnlyPort(port),
        resolver: stubResolver({}),
      }),
    );
    expect(err.code).toBe('SOURCE_URL_FETCH_FAILED');
  });
});

describe('fetchToFile redirects', () => {
  it('follows a relative redirect and reports the final URL', async () => {
    const got = await fetchToFile(`${origin.base}/redirect-relative`, freshDest(), fromOrigin());
    expect(got.finalUrl).toBe(`${origin.base}/report`);
    expect(got.filename).toBe('résumé.pdf');
  });

  it('follows up to 5 redirects and refuses a sixth', async () => {
    const ok = await fetchToFile(`${origin.base}/chain/5`, freshDest(), fromOrigin());
    expect(readFileSync(ok.path, 'utf8')).toBe('end of chain');
    const err = await failure(fetchToFile(`${origin.base}/chain/6`, freshDest(), fromOrigin()));
    expect(err.code).toBe('SOURCE_URL_FETCH_FAILED');
    expect(err.message).toMatch(/redirected more than 5/);
  });

  it.each([
    (p: number) => `http://127.0.0.1:${p}/`,
    (p: number) => `http://localhost:${p}/`,
    (p: number) => `http://[::1]:${p}/`,
    (p: number) => `http://2130706433:${p}/`,
    (p: number) => `http://[::ffff:127.0.0.1]:${p}/`,
    (p: number) => `http://sneaky.example.test:${p}/`,
    () => 'http://169.254.169.254/latest/meta-data/',
    () => 'http://internal.example.test/',
  ])('blocks a hop to a private target (%#) without connecting to it', async (target) => {
    const before = canary.connections();
    const to = encodeURIComponent(target(canary.port));
    const dir = freshDest();
    const err = await failure(
      fetchToFile(`${origin.base}/redirect?to=${to}`, dir, {
        allowPrivate: allowOnlyPort(origin.port),
        resolver: stubResolver({
          'sneaky.example.test': ['127.0.0.1'],
          'internal.example.test': ['10.0.0.5'],
        }),
      }),
    );
    expect(err.code).toBe('SOURCE_URL_BLOCKED');
    expect(canary.connections()).toBe(before);
    expect(canary.connections()).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it.each(['ftp://example.test/file', 'file:///etc/passwd', 'http://user:pw@example.test/'])(
    'refuses a hop to %s',
    async (target) => {
      const err = await failure(
        fetchToFile(`${origin.base}/redirect?to=${encodeURIComponent(target)}`, freshDest(), fromOrigin()),
      );
      expect(err.code).toBe('SOURCE_URL_FETCH_FAILED');
    },
  );
});

describe('fetchToFile local failures', () => {
  it('reports a missing destination folder as our error, not the source', async () => {
    const err = await failure(
      fetchToFile(`${origin.base}/report`, join(freshDest(), 'absent'), fromOrigin()),
    );
    expect(err.code).toBe('INTERNAL_ERROR');
  });
});
