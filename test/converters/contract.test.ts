import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderConversionsDoc } from '../../src/docs/conversions.js';
import { edgeOptionNames, SPECIAL_FAMILIES } from '../../src/engine/contract.js';
import { packageRoot } from '../../src/engine/package-files.js';
import { type EngineStatus, loadConverters, probeEngines } from '../../src/engine/registry.js';
import { FAMILIES, getFormat } from '../../src/formats/index.js';
import { buildCatalog } from '../../src/plan/graph.js';

const converters = await loadConverters();
const CONVERSION_FAMILIES = new Set<string>([...FAMILIES, ...SPECIAL_FAMILIES]);

/** Catalog families the finished product covers with every engine installed. */
const PRODUCT_FAMILIES = [
  'document',
  'spreadsheet',
  'presentation',
  'image',
  'audio',
  'video',
  'data',
  'ebook',
  'ocr',
  'voice',
];

describe('converter contract', () => {
  it('discovers converters from the converters folder', () => {
    expect(converters.length).toBeGreaterThan(0);
  });

  it('gives every converter a unique name', () => {
    const names = converters.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });

  describe.each(converters.map((c) => [c.name, c] as const))('%s', (_name, converter) => {
    it('declares a description and a packages array of Debian package names', () => {
      expect(converter.description.length).toBeGreaterThan(0);
      expect(Array.isArray(converter.packages)).toBe(true);
      for (const p of converter.packages) expect(p).toMatch(/^[a-z0-9][a-z0-9+.-]+$/);
    });

    it('declares edges between canonical format ids, with a valid family and a positive cost', () => {
      expect(converter.edges.length).toBeGreaterThan(0);
      for (const e of converter.edges) {
        const where = `${converter.name} ${e.from}-${e.to}`;
        expect(getFormat(e.from)?.id, `${where}: from`).toBe(e.from);
        expect(getFormat(e.to)?.id, `${where}: to`).toBe(e.to);
        // An edge that keeps the format is an operation: it must honour options that say what to do.
        if (e.from === e.to)
          expect(edgeOptionNames(converter, e).length, `${where}: operation without options`).toBeGreaterThan(
            0,
          );
        expect(CONVERSION_FAMILIES.has(e.family), `${where}: family ${e.family}`).toBe(true);
        expect(e.cost, where).toBeGreaterThan(0);
        expect(typeof e.lossy, where).toBe('boolean');
      }
    });

    it('declares each option with a schema and a description, and edges name only its own options', () => {
      for (const [name, spec] of Object.entries(converter.options ?? {})) {
        expect(name, converter.name).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(spec.description.length, `${converter.name} ${name}`).toBeGreaterThan(5);
        expect(typeof spec.schema.safeParse, `${converter.name} ${name}`).toBe('function');
      }
      for (const e of converter.edges)
        for (const name of e.options ?? [])
          expect(
            Object.hasOwn(converter.options ?? {}, name),
            `${converter.name} ${e.from}-${e.to}: ${name}`,
          ).toBe(true);
    });

    it('declares no edge twice', () => {
      const keys = converter.edges.map((e) => `${e.from}-${e.to}`);
      const twice = keys.filter((k, i) => keys.indexOf(k) !== i);
      expect(twice).toEqual([]);
    });

    it('has sane limits when it sets them', () => {
      if (converter.concurrency !== undefined) expect(converter.concurrency).toBeGreaterThanOrEqual(1);
      if (converter.timeoutMs !== undefined) expect(converter.timeoutMs).toBeGreaterThan(0);
    });

    it('probes to {ok}, with a version when ok', async () => {
      const probe = await converter.probe();
      expect(typeof probe.ok).toBe('boolean');
      if (probe.ok) expect(probe.version, 'version of an ok engine').toBeTruthy();
      else expect(probe.detail, 'why the engine is not usable').toBeTruthy();
    });
  });
});

describe('catalog of the installed engines', () => {
  let engines: EngineStatus[];

  it('counts pairs per family', async () => {
    engines = await probeEngines();
    const plans = buildCatalog(engines);
    const counts: Record<string, number> = {};
    for (const p of plans) counts[p.family] = (counts[p.family] ?? 0) + 1;
    console.log(`catalog: ${plans.length} pairs`, counts);
    expect(plans.length).toBeGreaterThan(0);
    for (const p of plans) {
      expect(p.key).toBe(`${p.from}-${p.to}`);
      expect(p.steps.length).toBeLessThanOrEqual(3);
      // a per-page step can only end a path
      for (const s of p.steps.slice(0, -1)) expect(s.edge.multiOutput ?? false, p.key).toBe(false);
    }
  });

  it('reaches at least 250 pairs across the product families with every engine declared', () => {
    const plans = buildCatalog(converters);
    const families = new Set<string>(plans.map((p) => p.family));
    expect(plans.length).toBeGreaterThanOrEqual(250);
    const absent = PRODUCT_FAMILIES.filter((f) => !families.has(f));
    expect(absent, 'families with no conversion').toEqual([]);
  });
});

describe('docs/conversions.md', () => {
  it('is up to date with the converters (run npm run docs)', () => {
    const committed = readFileSync(join(packageRoot(), 'docs', 'conversions.md'), 'utf8');
    expect(committed).toBe(renderConversionsDoc(converters));
  });
});
