// The fidelity part of the real-world run: what each successful conversion kept (words, pages,
// pictures, rows, size, duration, frames), judged against the floors of docs/fidelity.md.
import type { FidelityReport } from '../../src/fidelity/index.js';
import { measureFidelity } from '../../src/run/measure-tools.js';

export interface FidelityCase {
  name: string;
  report: FidelityReport;
}

/** Measures one case; a measure that cannot be taken is left out by the module, never guessed. */
export async function measureCase(
  name: string,
  from: string,
  to: string,
  source: string,
  outputs: string[],
  options: unknown,
): Promise<FidelityCase | undefined> {
  try {
    const report = await measureFidelity({
      from,
      to,
      source,
      outputs,
      options: options as Parameters<typeof measureFidelity>[0]['options'],
    });
    return report.measures.length > 0 ? { name, report } : undefined;
  } catch (e) {
    console.log(`  fidelity of ${name} could not be measured: ${(e as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

/** One line per pair (cases measured, cases at every floor, each measure's worst value), then every drop. */
export function printFidelity(cases: FidelityCase[]): number {
  const pairs = new Map<string, FidelityCase[]>();
  for (const c of cases) {
    const key = `${c.report.from}-${c.report.to}`;
    pairs.set(key, [...(pairs.get(key) ?? []), c]);
  }
  console.log('\nFidelity (what the output kept; floors in docs/fidelity.md)');
  for (const [key, list] of [...pairs].sort(([a], [b]) => a.localeCompare(b))) {
    const ok = list.filter((c) => c.report.ok).length;
    const worst = new Map<string, number>();
    for (const m of list.flatMap((c) => c.report.measures)) {
      const value = m.name === 'words_kept' ? Number(m.output) : m.ok ? 1 : 0;
      worst.set(m.name, Math.min(worst.get(m.name) ?? 1, value));
    }
    const shown = [...worst].map(([n, v]) => (n === 'words_kept' ? `${n} >= ${v.toFixed(3)}` : n)).join(', ');
    console.log(`  ${key.padEnd(12)} ${String(ok).padStart(4)}/${String(list.length).padEnd(4)} ${shown}`);
  }
  const drops = cases.filter((c) => !c.report.ok);
  if (drops.length) {
    console.log('  below a floor:');
    for (const c of drops) {
      const failed = c.report.measures.filter((m) => !m.ok);
      const what = failed.map((m) => `${m.name} ${m.output} vs ${m.source} (floor ${m.floor})`).join('; ');
      console.log(`    ${c.name}: ${what}`);
    }
  }
  const rate = cases.length ? (cases.length - drops.length) / cases.length : 1;
  console.log(`  all    ${cases.length - drops.length}/${cases.length} at every floor`);
  return rate;
}
