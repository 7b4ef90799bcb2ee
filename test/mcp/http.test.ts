import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConverters } from '../../src/engine/registry.js';
import { generateApiKey } from '../../src/identity/keys.js';
import { declaredOptions } from '../../src/plan/options.js';
import { addApiKey, removeDir, startTestServer, type TestServer } from '../server/helpers.js';
import { call, type ToolAnswer } from './helpers.js';

let server: TestServer;
let key: string;
const clients: Client[] = [];

async function connect(authorization?: string): Promise<Client> {
  const headers: Record<string, string> = authorization ? { authorization } : {};
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers },
  });
  const client = new Client({ name: 'fileconv-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return client;
}

beforeAll(async () => {
  // A key may check two files a day: the third is refused.
  server = await startTestServer({ quotaKey: 'conversions=10,voice=1,file_checks=2' });
  key = await addApiKey(server.dataDir);
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

describe('fileconv serve at /mcp (Streamable HTTP)', () => {
  it('refuses a call without a key, and one with a wrong key', async () => {
    await expect(connect()).rejects.toMatchObject({ code: 401 });
    await expect(connect(`Bearer ${generateApiKey()}`)).rejects.toMatchObject({ code: 401 });
    const bare = await request(`${server.url}/mcp`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(bare.statusCode).toBe(401);
    expect(bare.headers['www-authenticate']).toBe('Bearer');
    expect(((await bare.body.json()) as { error: { code: string } }).error.code).toBe('API_KEY_REQUIRED');
    const stream = await request(`${server.url}/mcp`, { headers: { authorization: `Bearer ${key}` } });
    expect(stream.statusCode).toBe(405);
    await stream.body.dump();
  });

  it('with a key: lists the tools, detects, counts the quota, converts and links the results', async () => {
    const client = await connect(`Bearer ${key}`);
    const tool = (name: string, args: Record<string, unknown>): Promise<ToolAnswer> =>
      call(client, name, args);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['catalog', 'convert', 'detect', 'status']);
    const options = (tools.find((t) => t.name === 'convert')!.inputSchema.properties?.options ?? {}) as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(options.properties).sort()).toEqual(
      [...declaredOptions(await loadConverters()).keys()].sort(),
    );

    const png = await tool('detect', {
      file: { content_base64: PNG.toString('base64'), filename: 'dot.jpg' },
    });
    expect(png.body).toMatchObject({
      status: 'succeeded',
      report: { declared: 'jpg', detected: 'png', match: false },
    });
    const csv = await tool('detect', { file: { content_base64: b64('a,b\n1,2\n'), filename: 'data.csv' } });
    expect(csv.body.report).toMatchObject({ detected: 'csv', match: true });
    const third = await tool('detect', { file: { content_base64: b64('a,b\n1,2\n'), filename: 'data.csv' } });
    expect(third.isError).toBe(true);
    expect(third.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', reset_at: expect.any(String) });

    const converted = await tool('convert', {
      file: { content_base64: b64('name,qty\napple,3\n'), filename: 'items.csv' },
      to: 'json',
      wait_seconds: 30,
    });
    expect(converted.body).toMatchObject({ status: 'succeeded', conversion: 'csv-json' });
    const [artifact] = converted.body.artifacts;
    expect(artifact.download).toMatch(/\/files\/[A-Za-z0-9_-]+\?expires=\d+&signature=[0-9a-f]{64}$/);
    const file = await request(artifact.download);
    expect(file.statusCode).toBe(200);
    expect(await file.body.json()).toEqual([{ name: 'apple', qty: 3 }]);

    const status = await tool('status', { request_id: converted.body.request_id, wait_seconds: 0 });
    expect(status.body).toMatchObject({ request_id: converted.body.request_id, status: 'succeeded' });
    const missing = await tool('status', { request_id: 'AAAAAAAAAAAAAAAAAAAAAA', wait_seconds: 0 });
    expect(missing.body.error.code).toBe('REQUEST_NOT_FOUND');

    const blocked = await tool('convert', { source_url: `${server.url}/skill.md`, to: 'html' });
    expect(blocked.body.error.code).toBe('SOURCE_URL_BLOCKED');
    const catalog = await tool('catalog', { from: 'csv', to: 'json' });
    expect(catalog.body.conversions.map((c: { key: string }) => c.key)).toEqual(['csv-json']);
  });
});
