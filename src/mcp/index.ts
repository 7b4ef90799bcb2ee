// The MCP server (Model Context Protocol): the tools an AI agent host calls, over stdio here and
// over Streamable HTTP under `fileconv serve` (src/server/http/routes/mcp.ts). See docs/mcp.md.
export { catalogTool, declaredInput, givenFormat, targetOf, targetShape } from './shared.js';
export { serveStdio } from './stdio.js';
export { createMcpServer, defineTool, type Tool } from './tool-kit.js';
