import { describe, expect, it } from 'vitest';
import { classifyAddress, isLocalName } from '../../src/intake/address.js';
import { checkHost } from '../../src/intake/guard.js';
import { stubResolver } from './servers.js';

describe('classifyAddress', () => {
  it.each([
    '8.8.8.8',
    '93.184.215.14',
    '1.1.1.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('lets public %s through', (address) => {
    expect(classifyAddress(address).public).toBe(true);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.1.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.251', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'ipv4Mapped:loopback'],
    ['::ffff:0:a00:1', 'rfc6145:private'],
    ['64:ff9b::a9fe:a9fe', 'rfc6052:linkLocal'],
    ['2002:808:808::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:db8::1', 'reserved'],
    ['::7f00:1', 'notGlobal'],
    ['4000::1', 'notGlobal'],
    ['not-an-address', 'invalid'],
  ])('refuses %s (%s)', (address, range) => {
    const verdict = classifyAddress(address);
    expect(verdict.public).toBe(false);
    expect(verdict.range).toBe(range);
  });
});

describe('isLocalName', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', 'a.b.localhost', 'localhost.localdomain'])(
    '%s is local',
    (n) => {
      expect(isLocalName(n)).toBe(true);
    },
  );
  it.each(['example.com', 'localhost.example.com', 'mylocalhost'])('%s is not', (n) => {
    expect(isLocalName(n)).toBe(false);
  });
});

describe('checkHost', () => {
  const signal = new AbortController().signal;

  it('returns the checked address of a public name, asking the resolver once', async () => {
    const resolver = stubResolver({
      'files.example.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    });
    const address = await checkHost(new URL('https://files.example.test/a.pdf'), {
      resolver,
      allowPrivate: false,
      signal,
    });
    expect(address).toBe('93.184.215.14');
    expect(resolver.asked).toEqual(['files.example.test']);
  });

  it('reports an unresolvable name as a fetch failure, not as blocked', async () => {
    const err = await checkHost(new URL('https://nowhere.example.test/'), {
      resolver: stubResolver({}),
      allowPrivate: false,
      signal,
    }).catch((e: unknown) => e);
    expect((err as { code: string }).code).toBe('SOURCE_URL_FETCH_FAILED');
  });

  it('allowPrivate: true lets loopback through; a predicate decides per target', async () => {
    const resolver = stubResolver({ 'dev.example.test': ['127.0.0.1'] });
    const url = new URL('http://dev.example.test:8080/');
    expect(await checkHost(url, { resolver, allowPrivate: true, signal })).toBe('127.0.0.1');
    expect(await checkHost(url, { resolver, allowPrivate: (t) => t.port === 8080, signal })).toBe(
      '127.0.0.1',
    );
    const err = await checkHost(url, { resolver, allowPrivate: (t) => t.port === 9090, signal }).catch(
      (e) => e,
    );
    expect(err.code).toBe('SOURCE_URL_BLOCKED');
  });
});
