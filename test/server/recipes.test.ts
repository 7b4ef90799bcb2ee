import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sizedPagesPdf } from '../converters/_image-samples.js';
import { pageRotations, pageText, pdfPages } from '../helpers/merge-inputs.js';
import { call as callTool } from '../mcp/helpers.js';
import { addApiKey, removeDir, startTestServer, type TestServer, tempDir } from './helpers.js';
import { call, recipeSuite } from './recipe-suite.js';

recipeSuite('sqlite-disk');

describe('MCP over HTTP: convert with a recipe', () => {
  let server: TestServer;
  let dir: string;
  let key: string;
  let three: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    dir = tempDir('fileconv-recipes-mcp-');
    three = await sizedPagesPdf(dir, [200, 300, 400], 'three.pdf');
    server = await startTestServer();
    // A key, added as `fileconv keys create` does: /mcp takes no call without one.
    key = await addApiKey(server.dataDir);
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await server?.stop();
    if (server) removeDir(server.dataDir);
    if (dir) removeDir(dir);
  });

  async function connect(headers: Record<string, string>): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
    });
    const client = new Client({ name: 'fileconv-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(transport);
    return client;
  }

  /** Downloads a tool answer's pdf artifact through its signed link. */
  async function artifactOf(body: { artifacts: { name: string; download: string }[] }, name: string) {
    const res = await request(body.artifacts.find((a) => a.name === 'pdf')!.download);
    expect(res.statusCode).toBe(200);
    const path = join(dir, name);
    writeFileSync(path, Buffer.from(await res.body.arrayBuffer()));
    return path;
  }

  it('uses a recipe saved under the X-Owner-Token sent with the call, or one given whole', async () => {
    const saved = await call(
      'POST',
      `${server.url}/api/public/recipes`,
      { name: 'turn-two', to: 'pdf', options: { rotate: 90, pages: '1-2' } },
      { authorization: `Bearer ${key}` },
    );
    expect(saved.status, saved.text).toBe(201);
    const token = String(saved.headers['x-owner-token']);
    const file = { content_base64: readFileSync(three).toString('base64'), filename: 'three.pdf' };

    const client = await connect({ 'x-owner-token': token });
    const byName = await callTool(client, 'convert', { file, recipe: 'turn-two', wait_seconds: 30 });
    expect(byName.body, byName.text).toMatchObject({ status: 'succeeded', conversion: 'pdf-pdf' });
    const pdf = await artifactOf(byName.body, 'by-name.pdf');
    expect(pdfPages(pdf)).toBe(2);
    expect(pageRotations(pdf)).toEqual([90, 90]);

    const whole = await callTool(client, 'convert', {
      file,
      recipe: { name: 'third', to: 'pdf', options: { pages: '3' } },
      wait_seconds: 30,
    });
    expect(whole.body, whole.text).toMatchObject({ status: 'succeeded' });
    const third = await artifactOf(whole.body, 'whole.pdf');
    expect(pdfPages(third)).toBe(1);
    expect(pageText(third, 1)).toMatch(/Page 3/);

    // Both conversions are filed under the token sent with the calls, as the API's are.
    const recent = await request(`${server.url}/api/public/requests/recent`, {
      headers: { 'x-owner-token': token },
    });
    const listed = ((await recent.body.json()) as { requests: { request_id: string }[] }).requests.map(
      (r) => r.request_id,
    );
    expect(listed).toEqual(expect.arrayContaining([byName.body.request_id, whole.body.request_id]));

    const otherTarget = await callTool(client, 'convert', { file, recipe: 'turn-two', to: 'png' });
    expect(otherTarget.isError).toBe(true);
    expect(otherTarget.body.error.code).toBe('INVALID_REQUEST');
    const unknown = await callTool(client, 'convert', { file, recipe: 'nope' });
    expect(unknown.body.error.message).toMatch(/no recipe named "nope"/);
    const bad = await callTool(client, 'convert', {
      file,
      recipe: { name: 'bad', to: 'pdf', options: { rotate: 45 } },
    });
    expect(bad.body.error).toMatchObject({ code: 'INVALID_REQUEST', option: 'rotate' });
    const notMerge = await callTool(client, 'convert', { files: [file, file], recipe: 'turn-two' });
    expect(notMerge.body.error.message).toMatch(/one file per request/);

    // Without the token, a name means nothing: the call says what to send.
    const bare = await connect({});
    const noToken = await callTool(bare, 'convert', { file, recipe: 'turn-two' });
    expect(noToken.isError).toBe(true);
    expect(noToken.body.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(noToken.body.error.message).toMatch(/X-Owner-Token/);
  });
});
