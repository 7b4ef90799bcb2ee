// The library's server side: the HTTP API as a Hono app to mount anywhere, or listening by itself.

import { closeEngines } from '../engine/registry.js';
import { type DailyQuotas, resolveServeConfig, type ServeConfig } from '../server/config.js';
import { publicUrlIntake } from '../server/http/url-intake.js';
import { type FileconvService, openService, type RunningServer, startServer } from '../server/server.js';

export interface ServiceOptions {
  /** Database, files and signing key; created if missing. */
  dataDir: string;
  /** Address and port of createServer (default 127.0.0.1 and 8080; port 0 takes any free one). */
  host?: string;
  port?: number;
  /** Base URL for links in answers; default: from the Host header. */
  publicUrl?: string;
  /** Conversions running at once (default: the CPU count). */
  concurrency?: number;
  /** Largest accepted upload in bytes (default 200 MiB). */
  maxUpload?: number;
  /** How long results are kept, in ms (default 24 h). */
  retentionMs?: number;
  /** Requests waiting in the queue before writes answer 503 (default 100). */
  maxQueued?: number;
  /** How long close() waits for running conversions, in ms (default 30 s). */
  shutdownGraceMs?: number;
  /** Take the client IP from Forwarded / X-Forwarded-For (only behind a proxy that overwrites them). */
  trustProxy?: boolean;
  /** Writes per minute per client IP; 0 turns the limit off (default 30). */
  rateLimit?: number;
  /** Daily quotas of anonymous callers and of each API key; missing numbers keep their defaults. */
  quotas?: { anonymous?: Partial<DailyQuotas>; key?: Partial<DailyQuotas> };
  /** Where the service's log lines go (default: stderr). */
  log?: (message: string) => void;
}

/** Options over the defaults; environment variables are for the CLI and are not read here. */
function serviceConfig(options: ServiceOptions): ServeConfig {
  const { dataDir, host, port, publicUrl } = options;
  const base = resolveServeConfig(
    { dataDir, host, publicUrl, port: port === undefined ? undefined : String(port) },
    {},
  );
  const defined = <T>(value: T | undefined, fallback: T): T => (value === undefined ? fallback : value);
  return {
    ...base,
    concurrency: defined(options.concurrency, base.concurrency),
    maxUpload: defined(options.maxUpload, base.maxUpload),
    retentionMs: defined(options.retentionMs, base.retentionMs),
    maxQueued: defined(options.maxQueued, base.maxQueued),
    shutdownGraceMs: defined(options.shutdownGraceMs, base.shutdownGraceMs),
    trustProxy: defined(options.trustProxy, base.trustProxy),
    rateLimit: defined(options.rateLimit, base.rateLimit),
    quotas: {
      anonymous: { ...base.quotas.anonymous, ...options.quotas?.anonymous },
      key: { ...base.quotas.key, ...options.quotas?.key },
    },
  };
}

export interface FileconvApp {
  /** The Hono app: mount `app.fetch` in any fetch-style server, or route to it from your own app. */
  app: FileconvService['app'];
  /** `app.fetch`, bound. */
  fetch: FileconvService['app']['fetch'];
  /**
   * Stops taking writes, lets running conversions finish (up to the grace period), closes the
   * database and the warm engines (the browser).
   */
  close(): Promise<void>;
}

/**
 * The whole HTTP API without a socket: conversions run in this process, the database and files
 * live in `dataDir`, and the retention sweeper runs until close().
 */
export async function createApp(options: ServiceOptions): Promise<FileconvApp> {
  const config = serviceConfig(options);
  const service = await openService(config, {
    urlIntake: publicUrlIntake(config.maxUpload),
    log: options.log,
  });
  return {
    app: service.app,
    fetch: (request, ...rest) => service.app.fetch(request, ...rest),
    async close() {
      await service.drain();
      await service.close();
      await closeEngines();
    },
  };
}

export type FileconvServer = Pick<RunningServer, 'url' | 'port'> & { close(): Promise<void> };

/** The HTTP API listening on `host:port`, as `fileconv serve` runs it. */
export async function createServer(options: ServiceOptions): Promise<FileconvServer> {
  const config = serviceConfig(options);
  const server = await startServer(config, {
    urlIntake: publicUrlIntake(config.maxUpload),
    log: options.log,
  });
  return { url: server.url, port: server.port, close: () => server.shutdown() };
}
