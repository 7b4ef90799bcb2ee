import { OpenAPIHono } from '@hono/zod-openapi';
import { API_ROUTES } from './routes.js';

const DESCRIPTION = `Identifies files and converts them between formats with real engines.
Every error answers \`{"error": {"code", "message"}}\` (plus \`reset_at\` on 429); an unknown path
answers 404 NOT_FOUND and a known path with the wrong method 405 METHOD_NOT_ALLOWED. Writes
(POST detect and convert) may send X-Owner-Token and get one back; they carry RateLimit headers.
See docs/api.md and /skill.md.`;

/** The OpenAPI 3.1 document of the whole API, built from the route descriptions' zod schemas. */
export function openApiDocument(version: string): Record<string, unknown> {
  const holder = new OpenAPIHono();
  const registry = holder.openAPIRegistry;
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (fck_...) from `fileconv keys create`; without one, calls are anonymous.',
  });
  for (const route of API_ROUTES) registry.registerPath(route);
  return holder.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { title: 'fileconv', version, description: DESCRIPTION, license: { name: 'MIT' } },
    security: [{}, { apiKey: [] }],
  }) as unknown as Record<string, unknown>;
}
