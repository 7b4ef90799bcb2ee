import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  filePart,
  get,
  type Json,
  metaPart,
  post,
  ROOT,
  removeDir,
  startChildServer,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from './helpers.js';

interface Delivery {
  headers: IncomingMessage['headers'];
  body: string;
  verified: boolean;
}

/** Checks X-Fileconv-Signature the way docs/api.md tells receivers to. */
function verify(secret: string, header: string | undefined, body: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${body}`).digest();
  const fresh = Math.abs(Date.now() / 1000 - Number(m[1])) < 300;
  return fresh && timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'));
}

/** The secret as a receiver's operator gets it: `fileconv keys webhook-secret` on the data directory. */
async function storedWebhookSecret(dataDir: string): Promise<string> {
  const printed = execFileSync(
    process.execPath,
    [join(ROOT, 'bin', 'fileconv'), 'keys', 'webhook-secret', '--data-dir', dataDir],
    { encoding: 'utf8', env: { ...process.env, FILECONV_WEBHOOK_SECRET: '' } },
  );
  return printed.trim();
}

let receiver: Server;
let receiverPort: number;
let server: TestServer;
let secret: string;
const deliveries = new Map<string, Delivery[]>();
/** Answers each path gives, in order, before 200 (so a test can make the receiver fail first). */
const scripted = new Map<string, number[]>();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const list = deliveries.get(path) ?? [];
      list.push({
        headers: req.headers,
        body,
        verified: verify(secret, req.headers['x-fileconv-signature'] as string, body),
      });
      deliveries.set(path, list);
      res.statusCode = scripted.get(path)?.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverPort = (receiver.address() as AddressInfo).port;
  server = await startTestServer(
    {},
    {
      // Only this test's receiver may be reached on loopback; every other private address is refused.
      webhookAllowPrivate: (t) => t.address === '127.0.0.1' && t.port === receiverPort,
      webhookRetryDelaysMs: [50, 100, 150],
    },
  );
  secret = await storedWebhookSecret(server.dataDir);
});
afterAll(async () => {
  await server.stop();
  await new Promise((r) => receiver.close(r));
  removeDir(server.dataDir);
});

const hookUrl = (path: string) => `http://127.0.0.1:${receiverPort}${path}`;

async function convertWith(webhook: unknown, conversion = 'csv-json', content = 'name,qty\napple,3\n') {
  return post(`${server.url}/api/public/convert`, [
    metaPart({ conversion, webhook }),
    filePart('fruit.csv', content),
  ]);
}

async function ended(id: string): Promise<{ view: Json; timeline: Json }> {
  await waitDone(server.url, id);
  await server.context.webhooks.idle();
  const view = (await get(`${server.url}/api/public/requests/${id}`)).json;
  const timeline = (await get(`${server.url}/api/public/requests/${id}/timeline`)).json;
  return { view, timeline };
}

const webhookEvents = (timeline: Json): string[] =>
  timeline.events
    .filter((e: { kind: string }) => e.kind === 'webhook')
    .map((e: { message: string }) => e.message);

describe('signed webhooks', () => {
  it('POSTs the finished request, signed, with the same JSON as GET /requests/{id}', async () => {
    const res = await convertWith({ url: hookUrl('/done?token=abc') });
    expect(res.status).toBe(202);
    const { view, timeline } = await ended(res.json.request_id);
    const got = deliveries.get('/done?token=abc') ?? [];
    expect(got).toHaveLength(1);
    expect(got[0]!.verified).toBe(true);
    expect(got[0]!.headers['content-type']).toBe('application/json');
    expect(got[0]!.headers['x-fileconv-event']).toBe('succeeded');
    expect(got[0]!.headers['x-fileconv-request-id']).toBe(view.request_id);
    expect(JSON.parse(got[0]!.body)).toEqual(view);
    // A signature under another secret, or over another body, does not verify.
    expect(verify(`${secret}x`, got[0]!.headers['x-fileconv-signature'] as string, got[0]!.body)).toBe(false);
    expect(verify(secret, got[0]!.headers['x-fileconv-signature'] as string, `${got[0]!.body} `)).toBe(false);
    const shown = webhookEvents(timeline);
    expect(shown).toEqual([`Webhook attempt 1 of 4 to ${hookUrl('/done')}: answered 200.`]);
  }, 60_000);

  it('retries on 5xx and records every attempt in the timeline', async () => {
    scripted.set('/flaky', [503, 500]);
    const res = await convertWith({ url: hookUrl('/flaky') });
    const { timeline } = await ended(res.json.request_id);
    const got = deliveries.get('/flaky') ?? [];
    expect(got).toHaveLength(3);
    expect(got.every((d) => d.verified)).toBe(true);
    expect(webhookEvents(timeline)).toEqual([
      `Webhook attempt 1 of 4 to ${hookUrl('/flaky')}: answered 503; retrying in 0.05 s.`,
      `Webhook attempt 2 of 4 to ${hookUrl('/flaky')}: answered 500; retrying in 0.1 s.`,
      `Webhook attempt 3 of 4 to ${hookUrl('/flaky')}: answered 200.`,
    ]);
  }, 60_000);

  it('gives up after 3 retries, and does not retry a 4xx', async () => {
    scripted.set('/down', [502, 502, 502, 502, 502]);
    scripted.set('/gone', [410]);
    const down = await convertWith({ url: hookUrl('/down') });
    const gone = await convertWith({ url: hookUrl('/gone') });
    expect(webhookEvents((await ended(down.json.request_id)).timeline)).toHaveLength(4);
    expect(deliveries.get('/down')).toHaveLength(4);
    expect(webhookEvents((await ended(gone.json.request_id)).timeline)).toEqual([
      `Webhook attempt 1 of 4 to ${hookUrl('/gone')}: answered 410.`,
    ]);
  }, 60_000);

  it('sends only the events asked for', async () => {
    const onlyFailed = await convertWith({ url: hookUrl('/failures'), events: ['failed'] });
    await ended(onlyFailed.json.request_id);
    expect(deliveries.get('/failures')).toBeUndefined();
    const broken = await convertWith(
      { url: hookUrl('/failures'), events: ['failed'] },
      'pdf-txt',
      '%PDF-1.4\nnot really a pdf\n',
    );
    const { view } = await ended(broken.json.request_id);
    expect(view.status).toBe('failed');
    // The queue tells the webhooks of an end just after storing it: a client that sees `failed`
    // may ask before the delivery has begun.
    await expect.poll(() => deliveries.get('/failures')?.length ?? 0, { timeout: 10_000 }).toBe(1);
    await server.context.webhooks.idle();
    const got = deliveries.get('/failures') ?? [];
    expect(got).toHaveLength(1);
    expect(got[0]!.headers['x-fileconv-event']).toBe('failed');
    expect(JSON.parse(got[0]!.body).error.code).toBe(view.error.code);
  }, 60_000);

  it('refuses webhook URLs that reach private addresses or are malformed, filing nothing', async () => {
    const cases: [unknown, RegExp][] = [
      [{ url: 'http://127.0.0.1:1/x' }, /loopback/],
      [{ url: 'http://10.1.2.3/x' }, /private/],
      [{ url: 'http://localhost/x' }, /local host name|loopback/],
      [{ url: 'ftp://example.com/x' }, /http/],
      [{ url: 'not a url' }, /http/],
      [{ url: hookUrl('/x'), events: ['done'] }, /events/],
      [{ url: hookUrl('/x'), events: [] }, /events/],
      [{ url: hookUrl('/x'), secret: 'x' }, /Unknown meta.webhook field/],
      ['https://example.com/', /object/],
    ];
    for (const [webhook, message] of cases) {
      const res = await convertWith(webhook);
      expect({ webhook, status: res.status, code: res.json?.error?.code }).toEqual({
        webhook,
        status: 400,
        code: 'INVALID_REQUEST',
      });
      expect(res.json.error.message).toMatch(message);
    }
  });
});

describe('fileconv serve with FILECONV_TEST_ALLOW_LOOPBACK_SOURCES=1', () => {
  it('delivers a signed webhook to a loopback receiver, through the same guard as source URLs', async () => {
    const dataDir = tempDir('fileconv-webhook-cli-');
    process.env.FILECONV_TEST_ALLOW_LOOPBACK_SOURCES = '1';
    const child = await startChildServer(dataDir).finally(() => {
      delete process.env.FILECONV_TEST_ALLOW_LOOPBACK_SOURCES;
    });
    try {
      const res = await post(`${child.url}/api/public/convert`, [
        metaPart({ conversion: 'csv-json', webhook: { url: hookUrl('/cli') } }),
        filePart('fruit.csv', 'name,qty\napple,3\n'),
      ]);
      expect(res.status).toBe(202);
      await waitDone(child.url, res.json.request_id);
      for (let i = 0; i < 200 && !deliveries.get('/cli'); i++) await new Promise((r) => setTimeout(r, 50));
      const got = deliveries.get('/cli') ?? [];
      expect(got).toHaveLength(1);
      const childSecret = await storedWebhookSecret(dataDir);
      expect(verify(childSecret, got[0]!.headers['x-fileconv-signature'] as string, got[0]!.body)).toBe(true);
      expect(JSON.parse(got[0]!.body).request_id).toBe(res.json.request_id);
    } finally {
      child.child.kill('SIGTERM');
      await child.exited;
      removeDir(dataDir);
    }
  }, 90_000);
});
