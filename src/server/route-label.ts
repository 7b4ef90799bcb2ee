import type { Context } from 'hono';
import { routePath } from 'hono/route';

/**
 * The route pattern that answered (`/api/public/requests/:id`), never the raw path, which would
 * put ids in metric labels and logs; paths no route knows match only catch-alls: `unmatched`.
 */
export function routeLabel(c: Context): string {
  const matched = routePath(c, -1);
  return !matched || matched.endsWith('*') ? 'unmatched' : matched;
}
