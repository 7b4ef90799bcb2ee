import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { SIGNING_SECRET_ENV, weakSigningSecret } from '../../src/server/access/secrets.js';
import { resolveServeConfig } from '../../src/server/config.js';
import { openService } from '../../src/server/server.js';
import { get, ROOT, removeDir, startChildServer, tempDir } from '../server/helpers.js';

/**
 * The signing secret (issue class 11): a placeholder shipped in a deployment example, or anything
 * shorter than 32 random bytes, signs links anyone could forge and seals passwords anyone could
 * open. `fileconv serve` must refuse to start with it, naming the setting and never the value.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) removeDir(d);
});

/** The value the Kubernetes example's Secret ships. */
function shippedPlaceholder(): string {
  const text = readFileSync(join(ROOT, 'deploy/kubernetes/fileconv.yaml'), 'utf8');
  const docs = parseAllDocuments(text).map((d) => d.toJS());
  return docs.find((d) => d?.kind === 'Secret').stringData[SIGNING_SECRET_ENV];
}

/** Runs `fileconv serve` with `secret`; resolves with its exit code and output once it exits. */
function serveWith(secret: string): Promise<{ code: number | null; output: string }> {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'fileconv'), 'serve', '--port', '0', '--data-dir', dataDir],
    { cwd: ROOT, env: { ...process.env, [SIGNING_SECRET_ENV]: secret }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    output += d.toString();
  });
  // Starting the CLI from source takes a while on a busy machine; a refused start ends well before.
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

/** Refused by the rule alone (the two cases below go through a started server). */
const WEAK = ['changeme', 'a short password', 'ab'.repeat(40), `secret-${'x'.repeat(70)}`];

describe('the signing secret', () => {
  it('refuses a shipped placeholder and secrets under 32 random bytes: the server does not start (exit 2)', async () => {
    const cases: [string, string][] = [
      [shippedPlaceholder(), 'placeholder'],
      // 16 random bytes: half of what is needed.
      [randomBytes(16).toString('hex'), 'at least 32 random bytes'],
    ];
    expect(cases[0]![0]).toMatch(/change-me/);
    const runs = await Promise.all(cases.map(([value]) => serveWith(value)));
    for (const [i, run] of runs.entries()) {
      const [value, why] = cases[i]!;
      expect(run.code, run.output).toBe(2);
      expect(run.output).toContain(SIGNING_SECRET_ENV);
      expect(run.output).toContain(why);
      expect(run.output).not.toContain(value);
      expect(run.output).not.toMatch(/listening on/);
    }
    for (const value of WEAK) expect(weakSigningSecret(value), value).toBeDefined();
  }, 240_000);

  it('starts with 32 random bytes, as hex or base64, and refuses a weak one through the library too', async () => {
    for (const ok of [randomBytes(32).toString('hex'), randomBytes(32).toString('base64')])
      expect(weakSigningSecret(ok)).toBeUndefined();
    const dataDir = tempDir();
    dirs.push(dataDir);
    const server = await startChildServer(dataDir, [], {
      [SIGNING_SECRET_ENV]: randomBytes(32).toString('hex'),
    });
    try {
      expect((await get(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    // A program that embeds the server reads the same variable, and is refused the same way.
    const before = process.env[SIGNING_SECRET_ENV];
    process.env[SIGNING_SECRET_ENV] = 'change-me-please-to-something-long-enough-0123456789';
    try {
      const config = { ...resolveServeConfig({ dataDir: tempDir() }, {}), port: 0 };
      dirs.push(config.dataDir);
      await expect(openService(config, { log: () => {} })).rejects.toThrow(/placeholder/);
    } finally {
      if (before === undefined) delete process.env[SIGNING_SECRET_ENV];
      else process.env[SIGNING_SECRET_ENV] = before;
    }
  }, 240_000);
});
