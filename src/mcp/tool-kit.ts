import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { packageVersion } from '../engine/package-files.js';
import { FileconvError, isFileconvError } from '../errors/index.js';

/** One MCP tool: its input schema (zod, so the SDK checks the arguments) and what it does. */
export interface Tool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: S;
  /** True for tools that only read (detect, catalog, status): hosts may run them without asking. */
  readOnly?: boolean;
  run(args: z.output<S>, signal: AbortSignal): Promise<Record<string, unknown>>;
}

/** Keeps a tool's arguments typed by its own schema while tools of several schemas share one list. */
export function defineTool<S extends z.ZodObject>(tool: Tool<S>): Tool {
  return tool as unknown as Tool;
}

/** A tool's answer: the JSON as text (every host reads it) and as structured content. */
function answer(body: Record<string, unknown>, isError = false): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body, null, 2) }],
    structuredContent: body,
    ...(isError ? { isError: true } : {}),
  };
}

/**
 * A failure as the API words it, `{"error": {"code", "message", ...}}`, so an agent can act on the
 * code (QUOTA_EXCEEDED with reset_at, NEEDS_OCR); anything unexpected is INTERNAL_ERROR, its
 * details for the server's log only.
 */
function failure(e: unknown, log: (message: string) => void): CallToolResult {
  if (isFileconvError(e)) return answer({ error: { code: e.code, message: e.message, ...e.extra } }, true);
  log(`mcp tool failed: ${(e as Error)?.stack ?? String(e)}`);
  const internal = new FileconvError('INTERNAL_ERROR');
  return answer({ error: { code: internal.code, message: internal.message } }, true);
}

/** An MCP server offering `tools`; connect it to a transport (stdio, or Streamable HTTP). */
export function createMcpServer(tools: readonly Tool[], log: (message: string) => void): McpServer {
  const server = new McpServer(
    { name: 'fileconv', version: packageVersion() },
    {
      instructions:
        'fileconv identifies files by their content and converts them with real engines. Call catalog to see what converts to what and which options a conversion takes, detect to learn what a file is, convert to convert (operations like pages, rotate, compress, ocr, password are options; several inputs are merged into one file).',
    },
  );
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: { readOnlyHint: tool.readOnly ?? false, openWorldHint: false },
      },
      async (args: unknown, extra: { signal: AbortSignal }) => {
        try {
          return answer(await tool.run(args as never, extra.signal));
        } catch (e) {
          return failure(e, log);
        }
      },
    );
  }
  return server;
}
