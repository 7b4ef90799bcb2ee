import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { packageRoot, packageVersion } from '../../../engine/package-files.js';
import { FileconvError } from '../../../errors/index.js';
import type { AppEnv, ServerContext } from '../../context.js';
import { statsView } from '../views.js';

const DAY_MS = 86_400_000;

export function registerInfoRoutes(app: Hono<AppEnv>, ctx: ServerContext): void {
  const { store, engine } = ctx;

  app.get('/api/public/stats', async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(statsView(await store.conversionCounts(Date.now() - DAY_MS)));
  });

  app.get('/api/public/conversions', async (c) => {
    const { plans } = await engine.catalog();
    return c.json({
      conversions: plans.map((p) => ({ key: p.key, from: p.from, to: p.to, family: p.family })),
    });
  });

  app.get('/api/public/catalog', async (c) => {
    const { engines, plans } = await engine.catalog();
    const keys = Object.fromEntries(
      plans.map((p) => [
        p.key,
        {
          family: p.family,
          lossy: p.lossy,
          steps: p.steps.map((s) => ({ from: s.from, to: s.to, engine: s.engines[0] })),
          options: p.options,
        },
      ]),
    );
    return c.json({
      version: packageVersion(),
      engines: engines.map((e) => ({ name: e.name, version: e.version ?? null })),
      keys,
    });
  });

  app.get('/skill.md', async (c) => {
    const text = await readFile(join(packageRoot(), 'skill.md'), 'utf8');
    return c.body(text, 200, { 'Content-Type': 'text/markdown; charset=utf-8' });
  });

  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/readyz', async (c) => {
    if (ctx.state.draining)
      throw new FileconvError('CONVERT_API_UNAVAILABLE', 'The server is shutting down.');
    try {
      await store.checkWritable();
    } catch (e) {
      ctx.log(`readiness: database not writable: ${(e as Error).message}`);
      throw new FileconvError('CONVERT_API_UNAVAILABLE', 'The database is not writable.');
    }
    const { engines, plans } = await engine.catalog();
    if (engines.length === 0)
      throw new FileconvError('CONVERT_API_UNAVAILABLE', 'No conversion engine is installed.');
    return c.json({
      status: 'ready',
      database: 'ok',
      engines: engines.length,
      conversions: plans.length,
      queued: await ctx.queue.depth(),
    });
  });
}
