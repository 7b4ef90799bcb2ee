import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Hono } from 'hono';
import { FileconvError } from '../../../errors/index.js';
import { createMcpServer } from '../../../mcp/index.js';
import type { AppEnv, ServerContext } from '../../context.js';
import { httpTools } from '../mcp-tools.js';

/** Room in a request body for the JSON around a file: the largest upload, base64-encoded. */
const JSON_ROOM = 1024 * 1024;

/**
 * The MCP server over Streamable HTTP at POST /mcp (docs/mcp.md). Stateless: every HTTP request
 * gets its own server with the caller's tools, answered as one JSON body, so any node of several
 * answers any call. An agent is a program with a key: calls without one are refused (401
 * API_KEY_REQUIRED), a bad key as everywhere (401 INVALID_API_KEY).
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
    const server = createMcpServer(await httpTools(c, ctx), ctx.log);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: Math.ceil(ctx.config.maxUpload / 3) * 4 + JSON_ROOM,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
}
