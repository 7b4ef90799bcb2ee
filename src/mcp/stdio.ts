import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { closeEngines } from '../engine/registry.js';
import { listCatalog } from '../plan/index.js';
import { localTools } from './local.js';
import { Roots } from './roots.js';
import { createMcpServer } from './tool-kit.js';

/**
 * `fileconv mcp`: the MCP server on this process's stdin and stdout, files inside `roots` only.
 * Resolves once the host closes the connection and the warm engines are stopped.
 */
export async function serveStdio(options: { roots: readonly string[] }): Promise<void> {
  // stdout carries the protocol: a stray print from anywhere in the process would corrupt it.
  console.log = console.error;
  console.info = console.error;
  const roots = await Roots.open(options.roots);
  const log = (message: string) => process.stderr.write(`fileconv mcp: ${message}\n`);
  const server = createMcpServer(await localTools(roots), log);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  // Probing the engines takes seconds: done while the host is still starting, not on its first call.
  listCatalog().catch((e: Error) => log(`probing engines failed: ${e.message}`));
  // The transport does not see the host hang up: stdin ending is the end of the session.
  process.stdin.once('end', () => void server.close());
  await closed;
  await closeEngines();
}
