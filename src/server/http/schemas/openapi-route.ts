import type { Hono } from 'hono';
import { packageVersion } from '../../../engine/package-files.js';
import type { AppEnv } from '../../context.js';

/**
 * `GET /openapi.json`. The generator and the route descriptions load on the first request and the
 * document is kept (the schemas do not change while running), so starting the server does not
 * pay for them.
 */
export function mountOpenApi(app: Hono<AppEnv>): void {
  let document: Promise<Record<string, unknown>> | undefined;
  app.get('/openapi.json', async (c) => {
    document ??= import('./document.js').then((m) => m.openApiDocument(packageVersion()));
    return c.json(await document);
  });
}
