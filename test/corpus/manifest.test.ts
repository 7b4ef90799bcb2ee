import { describe, expect, it } from 'vitest';
import { getFormat } from '../../src/formats/index.js';
import { readManifest } from './fetch.js';

describe('the real-world corpus manifest', async () => {
  const manifest = await readManifest();

  it('holds at least 400 files in at least 50 formats, each a registry format id', () => {
    expect(manifest.files.length).toBeGreaterThanOrEqual(400);
    expect(new Set(manifest.files.map((f) => f.format)).size).toBeGreaterThanOrEqual(50);
    expect(manifest.files.filter((f) => !getFormat(f.format)).map((f) => f.name)).toEqual([]);
  });

  it('pins every package it takes files from, and names files uniquely', () => {
    const used = new Set(manifest.files.flatMap((f) => (f.package ? [f.package] : [])));
    expect([...used].sort()).toEqual(Object.keys(manifest.packages).sort());
    for (const pkg of Object.values(manifest.packages)) {
      expect(pkg.version).toMatch(/^[\w.+~:-]+$/);
      expect(pkg.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(new Set(manifest.files.map((f) => f.name)).size).toBe(manifest.files.length);
  });

  it('cuts variants from whole files of the same format, shorter than their source', () => {
    const byName = new Map(manifest.files.map((f) => [f.name, f]));
    for (const cut of manifest.files.filter((f) => f.cut)) {
      const source = byName.get(cut.cut!.from)!;
      expect(source.cut).toBeUndefined();
      expect(cut.format).toBe(source.format);
      expect(cut.cut!.bytes).toBeLessThan(source.bytes);
      expect(cut.notes).toMatch(/truncated/);
    }
  });

  it('says which registry formats no package ships', () => {
    const present = new Set(manifest.files.map((f) => f.format));
    for (const m of manifest.missing) {
      expect(getFormat(m.format)).toBeDefined();
      expect(m.reason).not.toBe('');
    }
    const missing = manifest.missing.filter((m) => !m.reason.startsWith('variant')).map((m) => m.format);
    expect(missing.filter((f) => present.has(f))).toEqual([]);
  });
});
