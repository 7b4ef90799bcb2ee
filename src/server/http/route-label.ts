import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';

/**
 * The route pattern of the request (`/api/public/requests/:id`), never the raw path, which would
 * put ids in metric labels and logs. It is the first matching route handler in registration
 * order (the one that answers, or would have, had a middleware not refused the request first):
 * `/requests/recent` even though `/requests/:id` matches too. Paths no route knows: `unmatched`.
 */
export function routeLabel(c: Context): string {
  const route = matchedRoutes(c).find((r) => r.method !== 'ALL' && !r.path.endsWith('*'));
  return route?.path ?? 'unmatched';
}
