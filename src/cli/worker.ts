import type { Command } from 'commander';
import { closeEngines } from '../engine/registry.js';
import { loopbackAllowanceFromEnv } from '../intake/loopback.js';
import { WEBHOOK_SECRET_ENV } from '../server/access/secrets.js';
import { openService } from '../server/server.js';
import { nodeOptions, nodeSettings, refused, stopOnSignals } from './serve.js';

export function register(program: Command): void {
  nodeOptions(
    program
      .command('worker')
      .description(
        'Run conversions only, for API nodes started with `serve --no-worker` on the same --database and --storage.',
      ),
  ).action(async (all: Parameters<typeof nodeSettings>[1]) => {
    const settings = nodeSettings('worker', all);
    if (!settings) return;
    const { config, logger } = settings;
    // The same wiring as `serve` (queue, webhooks, retention, logs) without a listening socket.
    const service = await openService(
      { ...config, worker: true },
      {
        logger,
        sweepOrphans: false,
        webhookSecret: process.env[WEBHOOK_SECRET_ENV],
        webhookAllowPrivate: loopbackAllowanceFromEnv(),
      },
    ).catch((e) => refused('worker', e));
    if (!service) return;
    // The queue's timers do not hold a process open (a server's socket does); a worker has no socket.
    const keepAlive = setInterval(() => {}, 60_000);
    console.log(`fileconv worker running up to ${config.concurrency} conversions at once per engine`);
    console.log(`data in ${config.dataDir}`);
    stopOnSignals(async () => {
      clearInterval(keepAlive);
      await service.drain();
      await service.close();
      await closeEngines();
    });
  });
}
