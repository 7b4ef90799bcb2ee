import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileconvError } from '../../src/errors/index.js';
import { fetchToFile } from '../../src/intake/url.js';
import { closeServer, startCanary, stubResolver } from './servers.js';

let canary: Awaited<ReturnType<typeof startCanary>>;
let dest: string;
let P: number;

beforeAll(async () => {
  canary = await startCanary();
  P = canary.port;
  dest = mkdtempSync(join(tmpdir(), 'fileconv-intake-'));
});

afterAll(async () => {
  await closeServer(canary.server);
  rmSync(dest, { recursive: true, force: true });
});

/** Names the stub resolver knows; none of them exists in real DNS. */
const dns = stubResolver({
  'loopback.example.test': ['127.0.0.1'],
  'internal.example.test': ['10.0.0.5'],
  'mixed.example.test': ['93.184.215.14', '127.0.0.1'],
  'mixed-private-first.example.test': ['192.168.0.10', '93.184.215.14'],
  'mixed6.example.test': ['2606:4700::1', 'fd12::1'],
  'metadata.example.test': ['169.254.169.254'],
  'v6loop.example.test': ['::1'],
  'mapped.example.test': ['::ffff:127.0.0.1'],
  'nat64.example.test': ['64:ff9b::a00:1'],
  'cgnat.example.test': ['100.100.0.1'],
  'zero.example.test': ['0.0.0.0'],
  localhost: ['127.0.0.1'],
});

// Each spelling aims at the canary's port, so a connection that slipped through would be counted
// (loopback, 0.0.0.0, ::ffff:127.0.0.1 all reach the dual-stack canary).
const BLOCKED: Array<(port: number) => string> = [
  (p) => `http://localhost:${p}/`,
  (p) => `http://LOCALHOST:${p}/`,
  (p) => `http://localhost.:${p}/`,
  (p) => `http://files.localhost:${p}/`,
  (p) => `http://127.0.0.1:${p}/`,
  (p) => `http://127.1:${p}/`,
  (p) => `http://2130706433:${p}/`,
  (p) => `http://0x7f000001:${p}/`,
  (p) => `http://0x7f.1:${p}/`,
  (p) => `http://0177.0.0.1:${p}/`,
  (p) => `http://017700000001:${p}/`,
  (p) => `http://0x7f.0.0.1:${p}/`,
  (p) => `http://127.0.0.1.:${p}/`,
  (p) => `http://%31%32%37.0.0.1:${p}/`,
  (p) => `http://\uff11\uff12\uff17.0.0.1:${p}/`,
  (p) => `http://127.255.255.254:${p}/`,
  (p) => `https://127.0.0.1:${p}/`,
  (p) => `http://[::1]:${p}/`,
  (p) => `http://[0:0:0:0:0:0:0:1]:${p}/`,
  (p) => `http://[::ffff:127.0.0.1]:${p}/`,
  (p) => `http://[::ffff:7f00:1]:${p}/`,
  (p) => `http://[0:0:0:0:0:ffff:127.0.0.1]:${p}/`,
  (p) => `http://[::127.0.0.1]:${p}/`,
  (p) => `http://[::ffff:0:7f00:1]:${p}/`,
  (p) => `http://[64:ff9b::7f00:1]:${p}/`,
  (p) => `http://[64:ff9b::127.0.0.1]:${p}/`,
  (p) => `http://[64:ff9b:1::7f00:1]:${p}/`,
  (p) => `http://[2002:7f00:1::]:${p}/`,
  (p) => `http://[2001:0:7f00:1::1]:${p}/`,
  (p) => `http://0.0.0.0:${p}/`,
  (p) => `http://0:${p}/`,
  (p) => `http://[::]:${p}/`,
  () => 'http://10.0.0.1/',
  () => 'http://10.255.255.255/',
  () => 'http://172.16.0.1/',
  () => 'http://172.31.255.254/',
  () => 'http://192.168.1.1/',
  () => 'http://169.254.169.254/latest/meta-data/',
  () => 'http://[::ffff:169.254.169.254]/latest/meta-data/',
  () => 'http://[::ffff:a00:1]/',
  () => 'http://100.64.0.1/',
  () => 'http://100.127.255.254/',
  () => 'http://[fc00::1]/',
  () => 'http://[fd00::1]/',
  () => 'http://[fe80::1]/',
  () => 'http://[fec0::1]/',
  () => 'http://224.0.0.1/',
  () => 'http://239.255.255.250/',
  () => 'http://[ff02::1]/',
  () => 'http://255.255.255.255/',
  () => 'http://192.0.2.1/',
  () => 'http://198.18.0.1/',
  () => 'http://240.0.0.1/',
  () => 'http://[2001:db8::1]/',
  () => 'http://[100::1]/',
  (p) => `http://loopback.example.test:${p}/`,
  () => 'http://internal.example.test/file.pdf',
  (p) => `http://mixed.example.test:${p}/`,
  () => 'http://mixed-private-first.example.test/',
  () => 'http://mixed6.example.test/',
  () => 'http://metadata.example.test/',
  (p) => `http://v6loop.example.test:${p}/`,
  (p) => `http://mapped.example.test:${p}/`,
  () => 'http://nat64.example.test/',
  () => 'http://cgnat.example.test/',
  (p) => `http://zero.example.test:${p}/`,
];

describe('fetchToFile refuses non-public targets before connecting', () => {
  it('has a table of at least 30 blocked spellings', () => {
    expect(BLOCKED.length).toBeGreaterThanOrEqual(30);
  });

  it.each(BLOCKED.map((make, i) => [i, make] as const))('blocks spelling #%i', async (_i, make) => {
    const url = make(P);
    const err = await fetchToFile(url, dest, { resolver: dns }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, url).toBeInstanceOf(FileconvError);
    expect((err as FileconvError).code, `${url}: ${(err as Error).message}`).toBe('SOURCE_URL_BLOCKED');
  });

  it('never reached the canary and left no files', () => {
    expect(canary.connections()).toBe(0);
    expect(readdirSync(dest)).toEqual([]);
  });

  it('asked the resolver only about names, never about IP literals', () => {
    expect(dns.asked.every((h) => /[a-z]/i.test(h) && !h.includes(':'))).toBe(true);
    expect(dns.asked).toContain('mixed.example.test');
    expect(dns.asked).not.toContain('localhost');
  });
});

describe('fetchToFile rejects malformed source URLs', () => {
  const INVALID: unknown[] = [
    '',
    '   ',
    undefined,
    42,
    'not a url',
    'example.com/file.pdf',
    'ftp://example.com/file.pdf',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/plain,hello',
    'gopher://example.com/',
    'ws://example.com/',
    'http://user:pass@example.com/file.pdf',
    'https://user@example.com/file.pdf',
    'http://:pass@example.com/',
    'http://',
    'http://[::1',
    'http://999.1.1.1/',
    'http://1.2.3.4.5/',
    `https://example.com/${'a'.repeat(9000)}`,
  ];

  it.each(INVALID.map((u) => [String(u).slice(0, 60), u] as const))('rejects %s', async (_label, url) => {
    const err = await fetchToFile(url as string, dest, { resolver: dns }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileconvError);
    expect((err as FileconvError).code).toBe('INVALID_SOURCE_URL');
  });

  it('still never reached the canary', () => {
    expect(canary.connections()).toBe(0);
  });
});
