import type { Hono } from 'hono';
import { FileconvError } from '../../../errors/index.js';
import type { AppEnv, ServerContext } from '../../context.js';

// The SDK takes a while to load: a server loads it on the first call to /mcp, not at start.
let endpoint: Promise<typeof import('../mcp-tools.js')> | undefined;

/**
 * The MCP server over Streamable HTTP at POST /mcp (docs/mcp.md). An agent is a program with a
 * key: calls without one are refused (401 API_KEY_REQUIRED), a bad key as everywhere (401
 * INVALID_API_KEY).
 */
export function registerMcpRoute(app: Hono<AppEnv>, ctx: ServerContext): void {
  app.post('/mcp', async (c) => {
    if (c.get('identity').kind !== 'key') {
      c.header('WWW-Authenticate', 'Bearer');
      throw new FileconvError(
        'API_KEY_REQUIRED',
        'The MCP endpoint needs an API key: send it as Authorization: Bearer <key> (fileconv keys create).',
      );
    }
    endpoint ??= import('../mcp-tools.js');
    return (await endpoint).answerMcp(c, ctx);
  });
}
