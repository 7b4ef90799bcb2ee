import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detect, detectFile } from '../../src/detect/index.js';
import { FORMATS } from '../../src/formats/index.js';
import { EXPECTED, fixture } from './helpers.js';

describe('detection corpus', () => {
  const expectedIds = new Set(Object.values(EXPECTED));

  it('has a fixture for every format in the registry', () => {
    const missing = FORMATS.filter((f) => !expectedIds.has(f.detectsAs ?? f.id)).map((f) => f.id);
    expect(missing).toEqual([]);
  });

  // One positive case a registry format: the first fixture whose bytes are that format.
  it.each(FORMATS.map((f) => [f.id, f.detectsAs ?? f.id] as const))('detects %s', async (id, detectsAs) => {
    const name = Object.keys(EXPECTED).find((k) => EXPECTED[k] === detectsAs)!;
    const report = await detect(fixture(name), { declared: id });
    expect(report.detected).toBe(detectsAs);
    expect(report.match).toBe(true);
    expect(report.mime).toBe(FORMATS.find((f) => f.id === detectsAs)!.mime);
  });

  it('is at least 97% accurate over the whole corpus, hard cases included', async () => {
    const misses: string[] = [];
    for (const [name, id] of Object.entries(EXPECTED)) {
      const found = await detectFile(fixture(name));
      if (found.id !== id) misses.push(`${name}: expected ${id}, got ${found.id}`);
    }
    const total = Object.keys(EXPECTED).length;
    const accuracy = (total - misses.length) / total;
    console.log(`detection accuracy: ${(accuracy * 100).toFixed(1)}% (${total - misses.length}/${total})`);
    expect(misses).toEqual([]);
    expect(accuracy).toBeGreaterThanOrEqual(0.97);
  });

  it('keeps the committed fixtures under 3 MB', () => {
    const bytes = Object.keys(EXPECTED).reduce((sum, name) => sum + statSync(fixture(name)).size, 0);
    expect(bytes).toBeLessThan(3 * 1024 * 1024);
  });

  it('reports confidence levels that rank evidence: signature > container > text > bin', async () => {
    const png = await detectFile(fixture('image.png'));
    const docx = await detectFile(fixture('document.docx'));
    const csv = await detectFile(fixture('table.csv'));
    const garbage = await detectFile(fixture('garbage.bin'));
    expect(png.confidence).toBe(1);
    expect(docx.confidence).toBeCloseTo(0.9);
    expect(csv.confidence).toBeGreaterThanOrEqual(0.5);
    expect(csv.confidence).toBeLessThan(docx.confidence);
    expect(garbage).toEqual({ id: 'bin', confidence: 0.1 });
  });
});
