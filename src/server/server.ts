import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Logger } from 'pino';
import { OptionSecrets } from '../core/option-secrets.js';
import { closeEngines } from '../engine/registry.js';
import type { PrivateAllowance } from '../intake/guard.js';
import { dataDirScratch } from '../run/scratch.js';
import { openStores } from '../store/open.js';
import type { RequestRecord } from '../store/types.js';
import { keyIdentity } from './access/identity.js';
import { Metering } from './access/metering.js';
import { deploymentSecret, signingSecret, webhookSecret } from './access/secrets.js';
import { LinkSigner } from './access/tokens.js';
import type { ServeConfig } from './config.js';
import type { ServerContext, UrlIntake } from './context.js';
import { DEFAULT_RETRY_DELAYS_MS, WebhookDispatcher } from './delivery/webhooks.js';
import { createApp } from './http/app.js';
import { FinishedAnswers } from './http/finished-answers.js';
import { idleLimitOnClientOnly } from './http/idle-limit.js';
import { keptPollAnswerer } from './http/kept-polls.js';
import { coreEngine, type ServerEngine, warmEngines } from './jobs/engine.js';
import { JobRunner } from './jobs/job-runner.js';
import { ConversionQueue, QUEUE_POLL_MS } from './jobs/queue.js';
import { startSweeper, sweepExpired, sweepLeftInputs, sweepOrphans } from './jobs/retention.js';
import type { QueueObserver } from './observability/conversion-trace.js';
import { conversionLog, createLogger } from './observability/logging.js';
import { ServerMetrics } from './observability/metrics.js';

export interface RunningServer {
  /** Where it listens, like http://127.0.0.1:8080. */
  url: string;
  port: number;
  context: ServerContext;
  /** Stops taking writes, lets running conversions finish (up to the grace period), closes everything. */
  shutdown(): Promise<void>;
}

export interface StartOptions {
  engine?: ServerEngine;
  urlIntake?: UrlIntake;
  log?: (message: string) => void;
  /**
   * Where structured lines go. Default: JSON on stderr at warn (problems only, as before; the CLI
   * asks for info), or silent when `log` captures the problems.
   */
  logger?: Logger;
  /** Bearer token for GET /metrics (the CLI reads FILECONV_METRICS_TOKEN); none means open. */
  metricsToken?: string;
  /**
   * Deletes blobs nothing points at when it starts (default; single-node setups only). A worker
   * does not: the API process beside it may be between storing an upload and filing it.
   */
  sweepOrphans?: boolean;
  /** Webhook signing secret (the CLI reads FILECONV_WEBHOOK_SECRET); default: the database's. */
  webhookSecret?: string;
  /** Non-public webhook targets: tests allow their own loopback receiver; never set in production. */
  webhookAllowPrivate?: PrivateAllowance;
  /** Waits before each webhook retry (3 by default); tests shorten them. */
  webhookRetryDelaysMs?: readonly number[];
  /** The window of the per-minute write limit (a minute); tests shorten it to see a retry through. */
  writeWindowMs?: number;
}

/** The API without a listening socket: its context, its Hono app, and a way to stop it. */
export interface FileconvService {
  context: ServerContext;
  app: ReturnType<typeof createApp>;
  /** Stops taking writes and lets running conversions finish, up to the grace period. */
  drain(): Promise<void>;
  /** Closes the database; call after drain(). */
  close(): Promise<void>;
}

/** Opens the data directory, recovers the queue and starts the retention sweeper. */
export async function openService(config: ServeConfig, options: StartOptions = {}): Promise<FileconvService> {
  const logger = options.logger ?? createLogger({ format: 'json', level: options.log ? 'silent' : 'warn' });
  const log = options.log ?? ((m: string) => logger.error(m));
  const engine = options.engine ?? (await coreEngine());
  // A misspelt engine stops the start before anything is opened.
  if (config.worker) await engine.checkEngineNames?.(config.warm);
  // A weak FILECONV_SIGNING_SECRET stops the start before anything is opened, too.
  const deployment = deploymentSecret();
  const stores = await openStores(config, log);
  const { records, blobs } = stores;
  const store = records.requests;
  const secret = await signingSecret(records.secrets, config.dataDir);
  // Never a key of the database's: the deployment's secret, or one of this process's (option-secrets.ts).
  const optionSecrets = new OptionSecrets(deployment);
  const metering = new Metering(config, records.quotas, records.writeLimits, options.writeWindowMs);
  const scratch = await dataDirScratch(config.dataDir);
  const observers: QueueObserver[] = [];
  const runDeps = {
    store,
    blobs,
    scratch,
    engine,
    // An API-only node files conversions for workers elsewhere and runs none itself.
    concurrency: config.worker ? config.concurrency : 0,
    retentionMs: config.retentionMs,
    optionSecrets,
    log,
    adjustQuota: async (r: RequestRecord, units: number) => {
      if (!r.quota || units === 0) return false;
      if (units < 0) return metering.refund(r.identity, { ...r.quota, units: -units });
      await metering.charge(r.identity, { ...r.quota, units });
      return true;
    },
    deadlineMs: config.requestDeadlineMs,
    observers,
  };
  const queue = stores.jobs
    ? new JobRunner({
        ...runDeps,
        jobs: stores.jobs,
        heartbeatLimitMs: config.heartbeatLimitMs,
        lanes: async () => (await engine.catalog()).engines.map((e) => e.name),
      })
    : new ConversionQueue({ ...runDeps, pollMs: QUEUE_POLL_MS });
  const metrics = new ServerMetrics(queue, options.metricsToken || undefined);
  const webhooks = new WebhookDispatcher({
    store,
    secret: options.webhookSecret || (await webhookSecret(records.secrets, config.dataDir)),
    allowPrivate: options.webhookAllowPrivate ?? false,
    retryDelaysMs: options.webhookRetryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
    log,
  });
  observers.push(metrics, webhooks, conversionLog(logger));
  if (config.worker) await queue.recover();
  // Orphans are only known for sure when no other node may be between storing an upload and filing it.
  if (options.sweepOrphans !== false && stores.embedded && config.storage === undefined)
    await sweepOrphans(store, blobs);
  await sweepExpired(store, blobs);
  await sweepLeftInputs(store, blobs);

  const context: ServerContext = {
    config,
    store,
    recipes: records.recipes,
    blobs,
    scratch,
    engine,
    queue,
    signer: new LinkSigner(secret),
    identity: keyIdentity(records.keys, config.trustProxy),
    limits: metering,
    urlIntake: options.urlIntake,
    metrics,
    webhooks,
    finishedAnswers: new FinishedAnswers(),
    optionSecrets,
    state: { draining: false },
    logger,
    log,
  };
  const app = createApp(context);
  const stopSweeper = startSweeper(store, blobs, config.sweepIntervalMs, log);
  // Warm the catalog so the first request and /readyz do not pay for probing the engines.
  engine.catalog().catch((e) => log(`probing engines failed: ${(e as Error).message}`));
  if (config.worker && config.warm.length > 0) {
    // Not errors: an engine that cannot start now still starts on its first conversion.
    void warmEngines(engine, config.warm, options.log ?? ((m) => logger.info(m)));
  }
  await queue.start();
  let draining: Promise<void> | undefined;
  return {
    context,
    app,
    drain() {
      draining ??= (async () => {
        context.state.draining = true;
        stopSweeper();
        await queue.stop(config.shutdownGraceMs);
        await webhooks.stop();
      })();
      return draining;
    },
    close() {
      return stores.close();
    },
  };
}

export async function startServer(config: ServeConfig, options: StartOptions = {}): Promise<RunningServer> {
  const service = await openService(config, options);
  const server = await new Promise<Server>((resolve, reject) => {
    const answerKept = keptPollAnswerer(service.context);
    const s = serve(
      {
        fetch: service.app.fetch,
        hostname: config.host,
        port: config.port,
        autoCleanupIncoming: false,
        // Polls of finished requests are answered before Hono sees them (kept-polls.ts).
        createServer: ((options: ServerOptions, listener: RequestListener) =>
          createServer(options, (req, res) => {
            idleLimitOnClientOnly(req, res, config.idleTimeoutMs);
            if (!answerKept(req, res)) listener(req, res);
          })) as typeof createServer,
      },
      () => resolve(s as Server),
    ) as Server;
    s.once('error', reject);
  });
  // Uploads of 200 MiB on slow links take a while; the default 5 min request timeout cuts them.
  // Their pace is watched instead (config.uploadPace), and a connection idle in both directions,
  // such as a download nobody reads, is destroyed after idleTimeoutMs with the file it was sending
  // (not while the server itself works on a request it has whole: http/idle-limit.ts).
  server.requestTimeout = 0;
  server.timeout = config.idleTimeoutMs;
  // Keep-alive connections must close (and say so in Keep-Alive: timeout=) before the idle timer
  // would, or a client could reuse a socket the server is destroying.
  server.keepAliveTimeout = Math.min(server.keepAliveTimeout, Math.floor(config.idleTimeoutMs / 2));

  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    context: service.context,
    shutdown() {
      closing ??= (async () => {
        await service.drain();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 2000).unref();
        });
        await service.close();
        await closeEngines();
      })();
      return closing;
    },
  };
}
