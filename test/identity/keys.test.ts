import { describe, expect, it } from 'vitest';
import {
  generateApiKey,
  generateOwnerToken,
  hashSecret,
  keyPrefix,
  looksLikeApiKey,
  looksLikeOwnerToken,
  safeEqual,
} from '../../src/identity/keys.js';

describe('keys', () => {
  it('makes API keys of fck_ and 43 base64url characters, all different', () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const k of keys) expect(k).toMatch(/^fck_[A-Za-z0-9_-]{43}$/);
    expect(new Set(keys).size).toBe(keys.length);
    expect(Buffer.from(keys[0]!.slice(4), 'base64url')).toHaveLength(32);
  });

  it('makes owner tokens of fco_ and 43 base64url characters', () => {
    const t = generateOwnerToken();
    expect(t).toMatch(/^fco_[A-Za-z0-9_-]{43}$/);
    expect(looksLikeOwnerToken(t)).toBe(true);
    expect(looksLikeApiKey(t)).toBe(false);
  });

  it('recognises the key shape only', () => {
    expect(looksLikeApiKey(generateApiKey())).toBe(true);
    expect(looksLikeApiKey('fck_short')).toBe(false);
    expect(looksLikeApiKey(`fck_${'a'.repeat(42)}=`)).toBe(false);
    expect(looksLikeApiKey(`xyz_${'a'.repeat(43)}`)).toBe(false);
  });

  it('hashes to SHA-256 hex', () => {
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashSecret(generateApiKey())).toMatch(/^[0-9a-f]{64}$/);
  });

  it('compares secrets of any lengths', () => {
    const k = generateApiKey();
    expect(safeEqual(k, `${k}`)).toBe(true);
    expect(safeEqual(k, k.slice(0, -1))).toBe(false);
    expect(safeEqual(k, `${k}x`)).toBe(false);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('', 'a')).toBe(false);
  });

  it('shows only a short prefix of a key', () => {
    const k = generateApiKey();
    const p = keyPrefix(k);
    expect(p).toBe(k.slice(0, 10));
    expect(p.startsWith('fck_')).toBe(true);
  });
});
