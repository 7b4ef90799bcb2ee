import { describe, expect, it } from 'vitest';
import { anonymousIdentity, clientIp, normalizeIp } from '../../src/identity/client-ip.js';

const SOCKET = '198.51.100.20';

describe('clientIp', () => {
  it('ignores forwarded headers unless the proxy is trusted', () => {
    const headers = { 'x-forwarded-for': '203.0.113.9', forwarded: 'for=203.0.113.10' };
    expect(clientIp(SOCKET, headers, false)).toBe(SOCKET);
  });

  it.each([
    [{ 'x-forwarded-for': '203.0.113.9, 10.0.0.1' }, '203.0.113.9'],
    [{ 'x-forwarded-for': ' 203.0.113.9 ' }, '203.0.113.9'],
    [{ 'x-forwarded-for': '203.0.113.9:5555, 10.0.0.1' }, '203.0.113.9'],
    [{ 'x-forwarded-for': ['203.0.113.9', '10.0.0.1'] }, '203.0.113.9'],
    [{ 'x-forwarded-for': '2001:db8::7, 10.0.0.1' }, '2001:db8::7'],
    [{ 'x-forwarded-for': '[2001:db8::7]:443' }, '2001:db8::7'],
    [{ 'x-forwarded-for': '::ffff:203.0.113.9' }, '203.0.113.9'],
    [{ forwarded: 'for=203.0.113.10;proto=https, for=10.0.0.1' }, '203.0.113.10'],
    [{ forwarded: 'proto=https;For="[2001:db8::1]:4711"' }, '2001:db8::1'],
    [{ forwarded: 'for="203.0.113.10:8080"' }, '203.0.113.10'],
    [{ forwarded: 'for=203.0.113.10', 'x-forwarded-for': '203.0.113.99' }, '203.0.113.10'],
    [{ forwarded: 'for=unknown', 'x-forwarded-for': '203.0.113.99' }, '203.0.113.99'],
    [{ 'x-forwarded-for': 'not-an-ip' }, SOCKET],
    [{ 'x-forwarded-for': '127.1' }, SOCKET],
    [{ forwarded: 'for=_hidden' }, SOCKET],
    [{}, SOCKET],
  ])('trusted proxy: %j -> %s', (headers, expected) => {
    expect(clientIp(SOCKET, headers, true)).toBe(expected);
  });

  it('reads a fetch-style Headers object', () => {
    const headers = new Headers({ 'X-Forwarded-For': '203.0.113.9' });
    expect(clientIp(SOCKET, headers, true)).toBe('203.0.113.9');
    expect(clientIp(SOCKET, headers, false)).toBe(SOCKET);
  });

  it('unwraps an IPv4-mapped socket address', () => {
    expect(clientIp('::ffff:198.51.100.20', {}, false)).toBe(SOCKET);
    expect(clientIp(undefined, {}, false)).toBe('unknown');
  });
});

describe('anonymousIdentity', () => {
  it('keys IPv4 by address and IPv6 by its /64', () => {
    expect(anonymousIdentity('203.0.113.9')).toBe('ip:203.0.113.9');
    expect(anonymousIdentity('2001:db8:1:2:aaaa::1')).toBe('ip:2001:db8:1:2::/64');
    expect(anonymousIdentity('2001:db8:1:2:bbbb::9')).toBe(anonymousIdentity('2001:db8:1:2:aaaa::1'));
    expect(anonymousIdentity('::ffff:203.0.113.9')).toBe('ip:203.0.113.9');
  });

  it('normalizes only real addresses', () => {
    expect(normalizeIp('2001:0db8:0000::0001')).toBe('2001:db8::1');
    expect(normalizeIp('0x7f.1')).toBeUndefined();
    expect(normalizeIp('')).toBeUndefined();
  });
});
