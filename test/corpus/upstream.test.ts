import { describe, expect, it } from 'vitest';
import { getFormat } from '../../src/formats/index.js';
import { readManifest } from './fetch.js';
import { readUpstream } from './upstream.js';

/** Upstream projects whose files are kept for validating the project elsewhere: none may be in the corpus. */
const RESERVED =
  /exiftool|libheif|pandoc|python-docx|openpyxl|zlib|tika|magika|file-type|pdf\.?js|pillow|toml-test|miller|pymediainfo|kreuzberg|sample-files|mathiasbynens/i;
/**
 * The same projects in the debian source: Debian's binary packages built from them, and their
 * folders inside other packages (a library shipping a project's test suite). Matched by package
 * and by folder, not by any word of a path: imageio's own `pillow_info.py` is not Pillow's.
 */
const RESERVED_PACKAGES =
  /^(libimage-exiftool-perl|libheif.*|pandoc.*|python3-docx|python3-openpyxl|zlib1g.*|python3-pil.*|miller|python3-pymediainfo|node-file-type|pdf\.js|libjs-pdf)$/;
const RESERVED_FOLDERS = /\/(toml-test|sample-files|small|exiftool|magika|tika)\//i;

describe('the upstream source of the real-world corpus', async () => {
  const manifest = await readUpstream();
  const debian = await readManifest();

  it('holds, with the Debian source, at least 1,500 files; each a registry format id', () => {
    expect(manifest.files.length + debian.files.length).toBeGreaterThanOrEqual(1500);
    expect(manifest.files.length).toBeGreaterThanOrEqual(900);
    expect(manifest.files.filter((f) => !getFormat(f.format)).map((f) => f.name)).toEqual([]);
    expect(new Set(manifest.files.map((f) => f.format)).size).toBeGreaterThanOrEqual(40);
  });

  it('pins every source package by version and orig tarball hash, with its licence', () => {
    const used = new Set(manifest.files.flatMap((f) => (f.package ? [f.package] : [])));
    expect([...used].sort()).toEqual(Object.keys(manifest.packages).sort());
    for (const [name, pkg] of Object.entries(manifest.packages)) {
      expect(pkg.version).toMatch(/^[\w.+~:-]+$/);
      expect(pkg.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(pkg.orig).toMatch(new RegExp(`^${name.replace(/[.+]/g, '\\$&')}_.+\\.orig\\.tar\\.\\w+$`));
      expect(pkg.licence).not.toBe('');
    }
    for (const f of manifest.files.filter((e) => !e.cut)) {
      expect(f.version).toBe(manifest.packages[f.package!]!.version);
      expect(f.licence).toBe(manifest.packages[f.package!]!.licence);
    }
  });

  it('names files uniquely across both sources, and takes nothing from the reserved projects', () => {
    const names = [...manifest.files, ...debian.files].map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(
      manifest.files.filter((f) => RESERVED.test(`${f.package}/${f.path ?? f.name}`)).map((f) => f.name),
    ).toEqual([]);
    expect(
      debian.files
        .filter((f) => RESERVED_PACKAGES.test(f.package ?? '') || RESERVED_FOLDERS.test(f.path ?? f.name))
        .map((f) => f.name),
    ).toEqual([]);
  });

  it('includes encrypted, truncated and malformed files', () => {
    expect(manifest.files.filter((f) => f.encrypted).length).toBeGreaterThanOrEqual(10);
    expect(manifest.files.filter((f) => f.broken).length).toBeGreaterThanOrEqual(50);
    const byName = new Map(manifest.files.map((f) => [f.name, f]));
    const cuts = manifest.files.filter((f) => f.cut);
    expect(cuts.length).toBeGreaterThanOrEqual(10);
    for (const cut of cuts) {
      const source = byName.get(cut.cut!.from)!;
      expect(source.cut).toBeUndefined();
      expect(cut.format).toBe(source.format);
      expect(cut.cut!.bytes).toBeLessThan(source.bytes);
      expect(cut.notes).toMatch(/truncated/);
    }
  });

  it('says which registry formats it lacks, and why', () => {
    const present = new Set(manifest.files.map((f) => f.format));
    for (const m of manifest.missing) {
      expect(getFormat(m.format)).toBeDefined();
      expect(m.reason).not.toBe('');
      if (!m.reason.startsWith('only')) expect(present.has(m.format)).toBe(false);
    }
  });
});
