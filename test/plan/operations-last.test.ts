import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlannerEngines } from '../../src/plan/graph.js';
import { loadCatalog } from '../../src/plan/index.js';
import { planWithOptions, routeOf } from '../../src/plan/options.js';
import { runConversion } from '../../src/run/runner.js';
import { makeDocx } from '../server/helpers.js';

// Options only an operation on the target format honours (page numbers, a watermark, a password
// on the PDF a DOCX becomes) run that operation after the conversion, as one request.
let engines: PlannerEngines;
const dir = mkdtempSync(join(tmpdir(), 'fileconv-operations-last-'));
beforeAll(async () => {
  engines = (await loadCatalog()).engines;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('operations on the target after a conversion', () => {
  it('plans docx to pdf, then the PDF operation, giving each step only its own options', () => {
    const { plan, rerouted } = planWithOptions(
      { from: 'docx', to: 'pdf', options: { pages: '1', page_numbers: true, watermark: 'DRAFT' } },
      engines,
    );
    expect(rerouted).toBe(true);
    expect(plan.steps[0]).toMatchObject({ from: 'docx', to: 'pdf' });
    expect(plan.steps.slice(1).every((s) => s.from === 'pdf' && s.to === 'pdf')).toBe(true);
    // pages is the conversion's own: LibreOffice prints page 1, nothing after it picks again.
    expect(plan.steps[0]!.options).toContain('pages');
    expect(plan.steps.slice(1).flatMap((s) => s.options)).not.toContain('pages');
    expect(
      plan.steps
        .slice(1)
        .flatMap((s) => s.options)
        .sort(),
    ).toEqual(['page_numbers', 'watermark']);
    expect(routeOf(plan)).toMatch(/^docx -\(libreoffice\)-> pdf -\(\w+\)-> pdf/);
  });

  it('still refuses an option no step and no operation on the target takes', () => {
    expect(() => planWithOptions({ from: 'csv', to: 'json', options: { quality: 80 } }, engines)).toThrow(
      /option quality does not apply to this conversion \(csv -\(data\)-> json\)/,
    );
  });

  it('converts a DOCX to a PDF with page numbers and a password in one run', async () => {
    const input = join(dir, 'report.docx');
    writeFileSync(input, await makeDocx(dir, 60));
    const events: string[] = [];
    const result = await runConversion({
      input,
      from: 'docx',
      to: 'pdf',
      outDir: join(dir, 'out'),
      options: { page_numbers: true, user_password: 'open sesame' },
      onEvent: (e) => events.push(e.message),
    });
    const pdf = result.files[0]!.path;
    expect(events.join('\n')).toMatch(
      /the options route this conversion through docx -\(libreoffice\)-> pdf/,
    );
    // qpdf exits 0 from --requires-password when the file needs one.
    expect(() => execFileSync('qpdf', ['--requires-password', pdf])).not.toThrow();
    const text = execFileSync('pdftotext', ['-upw', 'open sesame', pdf, '-']).toString();
    const pages = Number(
      /Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', ['-upw', 'open sesame', pdf]).toString())?.[1],
    );
    expect(pages).toBeGreaterThan(1);
    // Every page carries its number, as its own line of text.
    const lines = text.split(/\r?\n/).map((l) => l.trim());
    for (let n = 1; n <= pages; n++) expect(lines).toContain(String(n));
  }, 180_000);
});
