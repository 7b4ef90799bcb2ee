import { Hono } from 'hono';
import { FileconvError } from '../../errors/index.js';
import { drainRequest } from '../../intake/upload.js';
import { mountWebPage } from '../../web/serve.js';
import type { AppEnv, ServerContext } from '../context.js';
import { httpLogMiddleware } from '../observability/logging.js';
import { errorResponse, handleError } from './http-errors.js';
import { incomingOf } from './incoming.js';
import { registerFileRoutes } from './routes/files.js';
import { registerInfoRoutes } from './routes/info.js';
import { registerIntakeRoutes } from './routes/intake.js';
import { registerMcpRoute } from './routes/mcp.js';
import { registerRecipeRoutes } from './routes/recipes.js';
import { registerRequestRoutes } from './routes/requests.js';
import { mountOpenApi } from './schemas/openapi-route.js';

function routePattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/** The HTTP API over a server context: every route of docs/api.md, errors as JSON. */
export function createApp(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use('*', httpLogMiddleware(ctx.logger));
  app.use('*', ctx.metrics.middleware());
  ctx.metrics.mount(app, ctx.identity);

  // Every call knows who is calling before anything else runs; a bad Bearer key is refused everywhere.
  app.use('*', async (c, next) => {
    c.set('identity', await ctx.identity(c));
    await next();
  });

  registerIntakeRoutes(app, ctx);
  registerRequestRoutes(app, ctx);
  registerRecipeRoutes(app, ctx);
  registerInfoRoutes(app, ctx);
  registerFileRoutes(app, ctx);
  registerMcpRoute(app, ctx);
  mountOpenApi(app);
  // The web page at `/` (with app.js and style.css), sent with its security headers.
  mountWebPage(app);

  const routes = app.routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => ({ method: r.method, pattern: routePattern(r.path) }));

  app.notFound((c) => {
    drainRequest(incomingOf(c));
    const allowed = routes.filter((r) => r.pattern.test(c.req.path)).map((r) => r.method);
    if (allowed.length > 0) {
      const allow = [...new Set(allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed)].join(', ');
      return errorResponse(c, new FileconvError('METHOD_NOT_ALLOWED'), { Allow: allow });
    }
    return errorResponse(c, new FileconvError('NOT_FOUND'));
  });

  app.onError((e, c) => {
    // A refused write's body may still be arriving: let it in so the answer reaches the client.
    drainRequest(incomingOf(c));
    return handleError(e, c, ctx.log);
  });

  return app;
}
