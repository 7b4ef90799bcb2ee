import type { FidelityReport } from './measure.js';

/** A measure's value for the table: `1.000`, `2/2`, `64x48`. */
function cell(value: number | string): string {
  return typeof value === 'number' && !Number.isInteger(value) ? value.toFixed(3) : String(value);
}

/**
 * The fidelity table of a run: one line per pair, each measure as `name output/source`, failures
 * marked with `!` and their floor; then the pairs below a floor, worst words first.
 */
export function formatFidelityTable(reports: readonly FidelityReport[]): string {
  const lines = reports.map((r) => {
    const measures = r.measures.map((m) => {
      const shown = m.name === 'words_kept' ? cell(m.output) : `${cell(m.output)}/${cell(m.source)}`;
      return m.ok ? `${m.name} ${shown}` : `!${m.name} ${shown} (floor ${m.floor})`;
    });
    return `${r.ok ? 'ok  ' : 'FAIL'}  ${`${r.from}-${r.to}`.padEnd(14)}  ${measures.join('  ') || '(nothing measurable)'}`;
  });
  const failed = reports.filter((r) => !r.ok).length;
  lines.push(`${reports.length - failed} of ${reports.length} pairs at or above every floor.`);
  return lines.join('\n');
}
