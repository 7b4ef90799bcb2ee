import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey, generateOwnerToken, hashSecret, keyPrefix } from '../../src/identity/keys.js';
import { nextUtcMidnight } from '../../src/identity/quota.js';
import { DEFAULT_QUOTAS, parseQuotas, resolveServeConfig } from '../../src/server/config.js';
import { DATABASE_FILE } from '../../src/store/sqlite-db.js';
import { openDataDirRecords } from '../../src/store/sqlite-records.js';
import {
  type Answer,
  type ChildServer,
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
  UNREADABLE_BYTES,
  waitDone,
} from './helpers.js';

const servers: TestServer[] = [];
const children: ChildServer[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
  for (const s of servers) await s.stop();
  for (const d of [...dirs, ...servers.map((s) => s.dataDir)]) removeDir(d);
});

async function server(flags: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const s = await startTestServer(flags);
  servers.push(s);
  return s;
}

/** Runs `fileconv <args>` as a child process, like an operator at a shell. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [join(ROOT, 'bin', 'fileconv'), ...args], {
      cwd: ROOT,
      env: { ...process.env, FILECONV_DATA_DIR: '' },
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    p.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    p.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Adds a key straight to a server's database (as `fileconv keys create` does). */
async function addKey(dataDir: string): Promise<{ id: string; key: string }> {
  const key = generateApiKey();
  const id = `key_${hashSecret(key).slice(0, 12)}`;
  const records = openDataDirRecords(dataDir);
  await records.keys.createKey({
    id,
    hash: hashSecret(key),
    prefix: keyPrefix(key),
    createdAt: Date.now(),
  });
  await records.close();
  return { id, key };
}

const detect = (base: string, headers: Record<string, string> = {}, content = 'a,b\n1,2\n') =>
  post(`${base}/api/public/detect`, [filePart('data.csv', content, 'text/csv')], headers);

const convert = (base: string, conversion: string, name: string, content: string | Buffer, headers = {}) =>
  post(`${base}/api/public/convert`, [metaPart({ conversion }), filePart(name, content)], headers);

/** `"name";r=N;t=S` of the RateLimit header. */
function remaining(res: Answer, name: string): number | undefined {
  const m = new RegExp(`"${name}";r=(\\d+)`).exec(String(res.headers.ratelimit ?? ''));
  return m ? Number(m[1]) : undefined;
}

describe('serve configuration of limits', () => {
  it("defaults to api.md's numbers and reads flags and the environment", () => {
    const c = resolveServeConfig({}, {});
    expect(c.rateLimit).toBe(30);
    expect(c.trustProxy).toBe(false);
    expect(c.quotas).toEqual({
      anonymous: { conversions: 20, voice: 3, file_checks: 30 },
      key: { conversions: 500, voice: 20, file_checks: 300 },
    });
    const env = { FILECONV_RATE_LIMIT: '0', FILECONV_TRUST_PROXY: 'yes', FILECONV_QUOTA_KEY: 'voice=5' };
    const e = resolveServeConfig({ quotaAnon: 'conversions=2, file_checks=1' }, env);
    expect(e.rateLimit).toBe(0);
    expect(e.trustProxy).toBe(true);
    expect(e.quotas.anonymous).toEqual({ conversions: 2, voice: 3, file_checks: 1 });
    expect(e.quotas.key).toEqual({ conversions: 500, voice: 5, file_checks: 300 });
  });

  it('refuses malformed limits with the flag named', () => {
    expect(() => parseQuotas('--quota-anon', 'images=3', DEFAULT_QUOTAS.anonymous)).toThrow(/--quota-anon/);
    expect(() => parseQuotas('--quota-anon', 'voice=-1', DEFAULT_QUOTAS.anonymous)).toThrow(/--quota-anon/);
    expect(() => resolveServeConfig({ rateLimit: 'lots' }, {})).toThrow(/--rate-limit/);
    expect(() => resolveServeConfig({ trustProxy: 'maybe' }, {})).toThrow(/--trust-proxy/);
  });
});

describe('API keys through the CLI and a running server', () => {
  it('creates, uses, lists and revokes a key; the revocation counts at once; the plaintext is never logged', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const running = await startChildServer(dir, ['--rate-limit', '0']);
    children.push(running);
    const base = running.url;

    const made = await cli(['keys', 'create', '--json', '--label', 'ci robot', '--data-dir', dir]);
    expect(made.code).toBe(0);
    const created = JSON.parse(made.stdout) as Json;
    expect(Object.keys(created).sort()).toEqual(['created_at', 'id', 'key', 'label']);
    expect(created.key).toMatch(/^fck_[A-Za-z0-9_-]{43}$/);
    expect(created.label).toBe('ci robot');
    const auth = { authorization: `Bearer ${created.key}` };

    const used = await detect(base, auth);
    expect(used.status).toBe(200);
    // The key's own tier: L2b's 300 file checks a day, one used.
    expect(used.headers['ratelimit-policy']).toContain('"file_checks";q=300');
    expect(remaining(used, 'file_checks')).toBe(299);
    expect((await get(`${base}/api/public/conversions`, auth)).status).toBe(200);

    const listed = await cli(['keys', 'list', '--json', '--data-dir', dir]);
    expect(listed.code).toBe(0);
    const [row] = JSON.parse(listed.stdout) as Json[];
    expect(row).toMatchObject({
      id: created.id,
      label: 'ci robot',
      prefix: keyPrefix(created.key),
      revoked_at: null,
    });
    expect(row.last_used_at).toEqual(expect.any(String));
    expect(listed.stdout).not.toContain(created.key);
    const table = await cli(['keys', 'list', '--data-dir', dir]);
    expect(table.stdout).toContain(created.id);
    expect(table.stdout).toContain('active');

    const revoked = await cli(['keys', 'revoke', created.id, '--data-dir', dir]);
    expect(revoked.code).toBe(0);
    const refused = await get(`${base}/api/public/conversions`, auth);
    expect(refused.status).toBe(401);
    expect(refused.json.error.code).toBe('INVALID_API_KEY');
    const unknown = await get(`${base}/api/public/conversions`, {
      authorization: `Bearer ${generateApiKey()}`,
    });
    expect(unknown.status).toBe(401);
    expect(refused.json).toEqual(unknown.json);
    expect((await detect(base, auth)).status).toBe(401);
    expect((await cli(['keys', 'revoke', 'key_nosuchkey', '--data-dir', dir])).code).toBe(1);
    const after = JSON.parse((await cli(['keys', 'list', '--json', '--data-dir', dir])).stdout) as Json[];
    expect(after[0].revoked_at).toEqual(expect.any(String));

    running.child.kill('SIGTERM');
    await running.exited;
    expect(running.output.join('')).not.toContain(created.key);
    for (const f of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]) {
      const path = join(dir, f);
      if (existsSync(path)) expect(readFileSync(path).includes(created.key)).toBe(false);
    }
    const db = readFileSync(join(dir, DATABASE_FILE));
    expect(db.includes(hashSecret(created.key))).toBe(true);
  }, 120_000);
});

describe('identity', () => {
  it('refuses an unknown Bearer key on every endpoint with one answer, never as anonymous', async () => {
    const s = await server();
    const auth = { authorization: `Bearer ${generateApiKey()}` };
    const answers = [
      await get(`${s.url}/api/public/stats`, auth),
      await get(`${s.url}/api/public/requests/recent`, { ...auth, 'x-owner-token': generateOwnerToken() }),
      await get(`${s.url}/api/public/requests/AAAAAAAAAAAAAAAAAAAAAA`, auth),
      await get(`${s.url}/skill.md`, auth),
      await detect(s.url, auth),
      await get(`${s.url}/api/public/stats`, { authorization: 'Bearer not-even-a-key' }),
      await get(`${s.url}/api/public/stats`, { authorization: 'Bearer' }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(a.json).toEqual(answers[0]!.json);
    }
    expect(answers[0]!.json.error.code).toBe('INVALID_API_KEY');
  });

  it('counts Basic auth as anonymous, sharing the IP quota', async () => {
    const s = await server({ quotaAnon: 'file_checks=2' });
    const basic = { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` };
    const first = await detect(s.url, basic);
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toContain('"file_checks";q=2;w=86400');
    expect(remaining(first, 'file_checks')).toBe(1);
    expect(remaining(await detect(s.url), 'file_checks')).toBe(0);
    expect((await detect(s.url, basic)).status).toBe(429);
  });

  it('takes the client IP from X-Forwarded-For only when told to trust the proxy', async () => {
    const plain = await server({ quotaAnon: 'file_checks=1' });
    expect((await detect(plain.url, { 'x-forwarded-for': '203.0.113.1' })).status).toBe(200);
    expect((await detect(plain.url, { 'x-forwarded-for': '203.0.113.2' })).status).toBe(429);

    const proxied = await server({ quotaAnon: 'file_checks=1', trustProxy: 'true' });
    expect((await detect(proxied.url, { 'x-forwarded-for': '203.0.113.1' })).status).toBe(200);
    expect((await detect(proxied.url, { 'x-forwarded-for': '203.0.113.2, 10.0.0.1' })).status).toBe(200);
    expect((await detect(proxied.url, { 'x-forwarded-for': '203.0.113.1' })).status).toBe(429);
  });
});

describe('daily quotas', () => {
  it('refuses the call after the quota with 429 QUOTA_EXCEEDED, reset at midnight UTC; a key has its own', async () => {
    const s = await server({ quotaAnon: 'conversions=2', quotaKey: 'conversions=1' });
    for (let i = 0; i < 2; i++) {
      const ok = await convert(s.url, 'csv-json', 'a.csv', 'a,b\n1,2\n');
      expect(ok.status).toBe(202);
      expect(remaining(ok, 'conversions')).toBe(1 - i);
    }
    const before = Date.now();
    const refused = await convert(s.url, 'csv-json', 'a.csv', 'a,b\n1,2\n');
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('QUOTA_EXCEEDED');
    expect([nextUtcMidnight(before), nextUtcMidnight(Date.now())]).toContain(refused.json.error.reset_at);
    expect(refused.headers['ratelimit-policy']).toContain('"conversions";q=2;w=86400');
    expect(remaining(refused, 'conversions')).toBe(0);

    const { key } = await addKey(s.dataDir);
    const auth = { authorization: `Bearer ${key}` };
    expect((await convert(s.url, 'csv-json', 'a.csv', 'a,b\n1,2\n', auth)).status).toBe(202);
    expect((await convert(s.url, 'csv-json', 'a.csv', 'a,b\n1,2\n', auth)).status).toBe(429);
  });

  it('refunds a failed conversion: the unit comes back and the timeline says so', async () => {
    const s = await server({ quotaAnon: 'conversions=1' });
    const garbage = UNREADABLE_BYTES;
    const res = await convert(s.url, 'docx-pdf', 'broken.docx', garbage);
    expect(res.status).toBe(202);
    expect(remaining(res, 'conversions')).toBe(0);
    const done = await waitDone(s.url, res.json.request_id);
    expect(done.status).toBe('failed');
    const events = (await get(`${s.url}/api/public/requests/${res.json.request_id}/timeline`)).json.events;
    const kinds = events.map((e: { kind: string }) => e.kind);
    expect(kinds).toContain('refunded');
    expect(kinds.indexOf('refunded')).toBeGreaterThan(kinds.indexOf('failed'));
    const again = await convert(s.url, 'csv-json', 'a.csv', 'a,b\n1,2\n');
    expect(again.status).toBe(202);
    expect(remaining(again, 'conversions')).toBe(0);
  }, 120_000);

  it('checks and counts atomically: 40 parallel calls against 20 units left admit exactly 20', async () => {
    const s = await server({ quotaAnon: 'file_checks=25' });
    for (let i = 0; i < 5; i++) expect((await detect(s.url)).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 40 }, () => detect(s.url)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((x) => x === 200)).toHaveLength(20);
    expect(statuses.filter((x) => x === 429)).toHaveLength(20);
    for (const a of answers) expect(a.headers.ratelimit).toBeDefined();
  }, 60_000);

  it('does not count refused work: a detect without a file leaves the quota alone', async () => {
    const s = await server({ quotaAnon: 'file_checks=1' });
    const bad = await post(`${s.url}/api/public/detect`, [{ name: 'declared', value: 'csv' }]);
    expect(bad.status).toBe(422);
    expect((await detect(s.url)).status).toBe(200);
  });

  it('draws voice conversions on the voice quota only', async () => {
    const s = await server({ quotaAnon: 'voice=1,conversions=5' });
    const catalog = (await get(`${s.url}/api/public/conversions`)).json.conversions as Json[];
    const voice = catalog.find((c) => c.family === 'voice' && c.from === 'txt');
    expect(voice, 'a text-to-speech conversion is installed').toBeDefined();
    const first = await convert(s.url, voice.key, 'hello.txt', 'Hello there.');
    expect(first.status).toBe(202);
    expect(remaining(first, 'voice')).toBe(0);
    expect(remaining(first, 'conversions')).toBe(5);
    const second = await convert(s.url, voice.key, 'hello.txt', 'Hello again.');
    expect(second.status).toBe(429);
    expect(second.json.error.code).toBe('QUOTA_EXCEEDED');
    const plain = await convert(s.url, 'csv-json', 'a.csv', 'a,b\n1,2\n');
    expect(plain.status).toBe(202);
    expect(remaining(plain, 'conversions')).toBe(4);
    await waitDone(s.url, first.json.request_id);
  }, 60_000);
});

describe('per-minute write limit', () => {
  it('refuses the 31st write in a minute with 429 RATE_LIMITED, Retry-After and reset_at; refused writes count too', async () => {
    const s = await server({ rateLimit: '30' });
    const answers: Answer[] = [];
    for (let i = 0; i < 30; i++) {
      // Every other write is malformed (no file part): it is refused, and still counts.
      answers.push(
        i % 2 === 0
          ? await detect(s.url)
          : await post(`${s.url}/api/public/detect`, [{ name: 'declared', value: 'x' }]),
      );
    }
    expect(answers.filter((a) => a.status === 422)).toHaveLength(15);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(15);
    expect(answers[29]!.headers['ratelimit-policy']).toContain('"writes";q=30;w=60');
    expect(remaining(answers[29]!, 'writes')).toBe(0);
    const before = Date.now();
    const refused = await convert(s.url, 'csv-json', 'a.csv', 'a,b\n1,2\n');
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const resetAt = Date.parse(refused.json.error.reset_at);
    expect(resetAt).toBeGreaterThan(before - 1000);
    expect(resetAt).toBeLessThanOrEqual(before + 60_000);
    // Reads are not writes.
    expect((await get(`${s.url}/api/public/stats`)).status).toBe(200);
  }, 60_000);
});

describe('owner tokens and recent requests', () => {
  it('issues a token, files writes under it, and shows each token only its own requests', async () => {
    const s = await server();
    const first = await detect(s.url);
    const token = String(first.headers['x-owner-token']);
    expect(token).toMatch(/^fco_[A-Za-z0-9_-]{43}$/);
    const second = await detect(s.url, { 'x-owner-token': token });
    expect(second.headers['x-owner-token']).toBeUndefined();
    const other = String((await detect(s.url)).headers['x-owner-token']);
    expect(other).not.toBe(token);

    const mine = await get(`${s.url}/api/public/requests/recent`, { 'x-owner-token': token });
    expect(mine.status).toBe(200);
    expect(mine.json.requests.map((r: Json) => r.request_id)).toEqual([
      second.json.request_id,
      first.json.request_id,
    ]);
    const theirs = await get(`${s.url}/api/public/requests/recent`, { 'x-owner-token': other });
    expect(theirs.json.requests).toHaveLength(1);
    const stranger = await get(`${s.url}/api/public/requests/recent`, {
      'x-owner-token': generateOwnerToken(),
    });
    expect(stranger.json.requests).toEqual([]);
    const db = readFileSync(join(s.dataDir, DATABASE_FILE));
    expect(db.includes(token)).toBe(false);
  });

  it('applies the limit rules: default 20, clamped to 100, otherwise 400', async () => {
    const s = await server();
    const token = generateOwnerToken();
    const headers = { 'x-owner-token': token };
    for (let i = 0; i < 22; i++) expect((await detect(s.url, headers)).status).toBe(200);
    const recent = (q: string, h: Record<string, string> = headers) =>
      get(`${s.url}/api/public/requests/recent${q}`, h);
    const byDefault = await recent('');
    expect(byDefault.json.requests).toHaveLength(20);
    const times = byDefault.json.requests.map((r: Json) => Date.parse(r.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect((await recent('?limit=5')).json.requests).toHaveLength(5);
    const clamped = await recent('?limit=1000');
    expect(clamped.status).toBe(200);
    expect(clamped.json.requests).toHaveLength(22);
    for (const bad of ['0', '-1', '1.5', 'abc', '', '10x']) {
      const res = await recent(`?limit=${bad}`);
      expect(res.status, `limit=${bad}`).toBe(400);
      expect(res.json.error.code).toBe('INVALID_REQUEST');
    }
    const missing = await recent('', {});
    expect(missing.status).toBe(400);
    expect(missing.json.error.code).toBe('INVALID_REQUEST');
  });
});
