import { OpenAPIHono } from '@hono/zod-openapi';
import { optionsObjectSchema } from '../../../engine/options.js';
import { loadConverters } from '../../../engine/registry.js';
import { declaredOptions } from '../../../plan/options.js';
import { apiRoutes } from './routes.js';

const DESCRIPTION = `Identifies files and converts them between formats with real engines.
Every error answers \`{"error": {"code", "message"}}\` (plus \`reset_at\` on 429); an unknown path
answers 404 NOT_FOUND and a known path with the wrong method 405 METHOD_NOT_ALLOWED. Writes
(POST detect and convert) may send X-Owner-Token and get one back; they carry RateLimit headers.
See docs/api.md and /skill.md.`;

/**
 * The OpenAPI 3.1 document of the whole API, built from the route descriptions' zod schemas; the
 * convert options are those every converter declares, installed or not, so the document is the
 * same on every machine.
 */
export async function openApiDocument(version: string): Promise<Record<string, unknown>> {
  const options = optionsObjectSchema(declaredOptions(await loadConverters())).meta({
    id: 'ConversionOptions',
    description:
      'Options of a conversion; each is honoured by the engines named in docs/conversions.md ("Options"), and one that no step of the conversion honours is refused.',
  });
  const holder = new OpenAPIHono();
  const registry = holder.openAPIRegistry;
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (fck_...) from `fileconv keys create`; without one, calls are anonymous.',
  });
  for (const route of apiRoutes(options)) registry.registerPath(route);
  return holder.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { title: 'fileconv', version, description: DESCRIPTION, license: { name: 'MIT' } },
    security: [{}, { apiKey: [] }],
  }) as unknown as Record<string, unknown>;
}
