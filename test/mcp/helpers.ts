import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** A tool's answer: whether it is an error, its text, and the JSON it holds. */
export interface ToolAnswer {
  isError: boolean;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field by the tests.
  body: any;
}

/** Calls a tool with the SDK's client and reads its one text answer as JSON (when it is JSON). */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text?: string }[];
  const text = content.map((c) => c.text ?? '').join('\n');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { isError: Boolean(result.isError), text, body };
}
