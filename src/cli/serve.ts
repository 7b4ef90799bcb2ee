import type { Command } from 'commander';
import { EXIT, EXIT_CODE } from '../errors/exit-codes.js';
import { FileconvError, isFileconvError } from '../errors/index.js';
import { loopbackAllowanceFromEnv, TEST_LOOPBACK_WARNING } from '../intake/loopback.js';
import { WEBHOOK_SECRET_ENV } from '../server/access/secrets.js';
import { ENV_NAMES, type RawServeOptions, resolveServeConfig, type ServeConfig } from '../server/config.js';
import { publicUrlIntake } from '../server/http/url-intake.js';
import { createLogger, LOG_FORMATS, LOG_LEVELS } from '../server/observability/logging.js';
import { startServer } from '../server/server.js';

/** The settings every node has, `serve` and `worker` alike: where the data is, and how much to run. */
export function nodeOptions(command: Command): Command {
  return command
    .option(
      '--data-dir <dir>',
      `database, files and scratch space of this machine (${ENV_NAMES.dataDir}, default ./fileconv-data)`,
    )
    .option(
      '--database <url>',
      `postgres://user:password@host:port/db shared by all nodes (${ENV_NAMES.database}, default SQLite in --data-dir)`,
    )
    .option(
      '--storage <url>',
      `s3://bucket/prefix shared by all nodes, with FILECONV_S3_ENDPOINT and AWS_* (${ENV_NAMES.storage}, default --data-dir)`,
    )
    .option(
      '--concurrency <n>',
      `conversions at once per engine (${ENV_NAMES.concurrency}, default CPU count)`,
    )
    .option(
      '--retention <duration>',
      `how long results are kept, like 24h (${ENV_NAMES.retention}, default 24h)`,
    )
    .option(
      '--shutdown-grace <duration>',
      `wait for running conversions on SIGTERM (${ENV_NAMES.shutdownGrace}, default 30s)`,
    )
    .option(
      '--job-lease <duration>',
      `with --database: a job still held this long is delivered again, to run only if its worker's heartbeat stopped (${ENV_NAMES.jobLease}, default 15m)`,
    )
    .option(
      '--heartbeat-limit <duration>',
      `with --database: a conversion whose worker sent no heartbeat this long goes to another worker (${ENV_NAMES.heartbeatLimit}, default 30s)`,
    )
    .option(
      '--request-deadline <duration>',
      `the longest a conversion may run once started, all its steps and a merge's inputs together (${ENV_NAMES.requestDeadline}, default 30m)`,
    )
    .option(
      '--warm <engines>',
      `engines to start at once rather than on their first conversion, like chromium,libreoffice (${ENV_NAMES.warm}, default none)`,
    )
    .option('--log-format <format>', 'json or pretty (default: pretty on a terminal, else json)')
    .option('--log-level <level>', `${LOG_LEVELS.join(', ')} (default info)`);
}

type NodeFlags = RawServeOptions & { logFormat?: string; logLevel?: string };

/** The settings of a node, validated once; undefined (message printed, exit code set) when invalid. */
export function nodeSettings(
  command: string,
  all: NodeFlags,
): { config: ServeConfig; logger: ReturnType<typeof createLogger> } | undefined {
  const { logFormat, logLevel, ...flags } = all;
  // commander gives `worker: true` when --no-worker is absent; only the flag's "no" is a choice.
  if (flags.worker === true) delete flags.worker;
  try {
    return {
      config: resolveServeConfig(flags),
      logger: createLogger({
        format: oneOf('--log-format', logFormat, LOG_FORMATS) ?? (process.stderr.isTTY ? 'pretty' : 'json'),
        level: oneOf('--log-level', logLevel, LOG_LEVELS) ?? 'info',
      }),
    };
  } catch (e) {
    return refused(command, e);
  }
}

/**
 * A setting found wrong only while the node starts (an engine `--warm` names that does not
 * exist): said in one line with its exit code, as a flag's error is; anything else is thrown on.
 */
export function refused(command: string, e: unknown): undefined {
  if (!isFileconvError(e)) throw e;
  console.error(`fileconv ${command}: ${e.message}`);
  process.exitCode = EXIT_CODE[e.code];
  return undefined;
}

export function register(program: Command): void {
  nodeOptions(
    program
      .command('serve')
      .description(
        'Run the HTTP API and, unless --no-worker, the conversions (SQLite and local disk in --data-dir by default).',
      ),
  )
    .option('--host <host>', `address to listen on (${ENV_NAMES.host}, default 127.0.0.1)`)
    .option('--port <port>', `port, 0 for any free one (${ENV_NAMES.port}, default 8080)`)
    .option('--public-url <url>', `base URL for links (${ENV_NAMES.publicUrl}, default from the Host header)`)
    .option('--max-upload <size>', `largest upload, like 200MiB (${ENV_NAMES.maxUpload}, default 209715200)`)
    .option('--max-queued <n>', `conversions waiting before 503 (${ENV_NAMES.maxQueued}, default 100)`)
    .option(
      '--no-worker',
      `serve the API only; \`fileconv worker\` processes run the conversions (${ENV_NAMES.worker}=false)`,
    )
    .option(
      '--trust-proxy',
      `take the client IP from Forwarded / X-Forwarded-For; only behind a proxy that overwrites them (${ENV_NAMES.trustProxy})`,
    )
    .option(
      '--rate-limit <n>',
      `writes per minute per client IP, 0 for no limit (${ENV_NAMES.rateLimit}, default 30)`,
    )
    .option(
      '--quota-anon <quotas>',
      `daily quotas per anonymous IP, like "conversions=20,voice=3,file_checks=30" (${ENV_NAMES.quotaAnon})`,
    )
    .option(
      '--quota-key <quotas>',
      `daily quotas per API key, like "conversions=500,voice=20,file_checks=300" (${ENV_NAMES.quotaKey})`,
    )
    .option(
      '--upload-timeout <duration>',
      `time an upload starts with, plus 1 s per --upload-min-rate bytes (${ENV_NAMES.uploadTimeout}, default 30s)`,
    )
    .option(
      '--upload-min-rate <size>',
      `bytes per second an upload must average after that (${ENV_NAMES.uploadMinRate}, default 4KiB)`,
    )
    .option(
      '--idle-timeout <duration>',
      `close a connection idle in both directions this long (${ENV_NAMES.idleTimeout}, default 120s)`,
    )
    .option(
      '--downloads <mode>',
      `signed: this server streams results; presigned: its links redirect to S3 presigned URLs (${ENV_NAMES.downloads}, default signed)`,
    )
    .action(async (all: NodeFlags) => {
      const settings = nodeSettings('serve', all);
      if (!settings) return;
      const { config, logger } = settings;
      const allowLoopback = loopbackAllowanceFromEnv();
      if (allowLoopback) console.error(`\n${'!'.repeat(78)}\n${TEST_LOOPBACK_WARNING}\n${'!'.repeat(78)}\n`);
      const server = await startServer(config, {
        urlIntake: publicUrlIntake(config.maxUpload, allowLoopback),
        logger,
        metricsToken: process.env.FILECONV_METRICS_TOKEN,
        webhookSecret: process.env[WEBHOOK_SECRET_ENV],
        webhookAllowPrivate: allowLoopback,
      }).catch((e) => refused('serve', e));
      if (!server) return;
      console.log(`fileconv listening on ${server.url}`);
      console.log(`data in ${config.dataDir}`);
      stopOnSignals(() => server.shutdown());
    });
}

/**
 * SIGTERM or SIGINT: let running conversions finish (`shutdown`), then exit 0, or 1 if that failed;
 * a second signal stops at once (1).
 */
export function stopOnSignals(shutdown: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      console.log(`${signal} again: stopping now`);
      process.exit(EXIT.FAILED);
    }
    stopping = true;
    console.log(`${signal}: finishing running conversions, then stopping`);
    shutdown().then(
      () => process.exit(EXIT.OK),
      (e) => {
        console.error(e);
        process.exit(EXIT.FAILED);
      },
    );
  };
  // `on`, not `once`: while execa runs a subprocess, its exit hook also listens, and re-raises the
  // signal (killing the process mid-shutdown) when it finds itself the only listener left.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new FileconvError('INVALID_REQUEST', `${flag} must be one of ${allowed.join(', ')}, got "${value}".`);
}
