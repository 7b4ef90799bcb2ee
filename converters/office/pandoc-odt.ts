import { readEntries, writeEntries } from './zip-parts.js';

/*
 * Two things in pandoc's ODT that Writer, and the Word file Writer saves from it, lose:
 *
 * - Every table cell has `fo:border="none"`, so a table arrives as a grid of floating words. Its
 *   two cell styles (header row and body rows, in content.xml's automatic styles) get a thin rule
 *   and a little padding, as a word processor's default table has.
 * - A formula's integral with limits is MathML `msubsup` (or `msub`, `msup`) on an `mo` operator,
 *   as TeX sets an integral's limits beside it. Writer's MathML import drops limits written that
 *   way (checked: `\int_0^1` arrives as a bare integral sign) and keeps them on `munderover`,
 *   `munder` and `mover`, which Word's math then draws as a large operator's limits.
 * - A function name (`\sin`, `\log`, `\lim`) is an `mo` of letters, which Writer's import drops
 *   (`a \sin t` arrives as `a t`); as an `mi`, the element MathML itself gives names, it is kept
 *   and drawn upright.
 */
const CELL_STYLE =
  /(<style:style style:name="Table(?:Header)?RowCell" style:family="table-cell">\s*<style:table-cell-properties )fo:border="none"/g;
const RULED = 'fo:border="0.5pt solid #000000" fo:padding="0.05in"';

export function ruledTableCells(contentXml: string): string {
  return contentXml.replace(CELL_STYLE, `$1${RULED}`);
}

/** Large operators: the n-ary sums, products, integrals, unions and intersections of Unicode math. */
const LARGE_OPERATOR = /^[\u2140\u220F-\u2211\u222B-\u2233\u22C0-\u22C3\u2A00-\u2A1C]$/u;
const LIMITS: Record<string, string> = { msubsup: 'munderover', msub: 'munder', msup: 'mover' };
const TAG = /<(\/?)(m[a-z]+)\b[^>]*?(\/?)>/g;

const NAMED_OPERATOR = /<mo\b([^>]*)>(\p{L}{2,})<\/mo>/gu;

/** A formula's MathML as Writer reads it whole: function names, and large operators' limits. */
export function formulaForWriter(mathml: string): string {
  return operatorLimits(mathml.replace(NAMED_OPERATOR, '<mi mathvariant="normal"$1>$2</mi>'));
}

/** Limits on large operators written as under- and over-scripts. */
function operatorLimits(mathml: string): string {
  const renamed = new Map<number, string>();
  const open: { name: string; at: number }[] = [];
  for (const m of mathml.matchAll(TAG)) {
    const [whole, closing, name, selfClosing] = m;
    const at = m.index;
    if (selfClosing) continue;
    if (!closing) {
      open.push({ name: name!, at });
      const base = LIMITS[name!] && /^<mo\b[^>]*>([^<]*)<\/mo>/.exec(mathml.slice(at + whole.length));
      if (base && LARGE_OPERATOR.test(base[1]!.trim())) renamed.set(at, LIMITS[name!]!);
      continue;
    }
    const start = open.pop();
    if (start && renamed.has(start.at)) renamed.set(at, renamed.get(start.at)!);
  }
  if (renamed.size === 0) return mathml;
  return mathml.replace(TAG, (tag, closing: string, name: string, _s, at: number) =>
    renamed.has(at) ? tag.replace(`<${closing}${name}`, `<${closing}${renamed.get(at)}`) : tag,
  );
}

/** Rewrites pandoc's ODT in place: ruled table cells, and formulas with their operators' limits. */
export async function forWriter(odt: string): Promise<void> {
  const entries = await readEntries(odt);
  let changed = false;
  for (const entry of entries) {
    const fix =
      entry.name === 'content.xml'
        ? ruledTableCells
        : /^Formula-\d+\/content\.xml$/.test(entry.name)
          ? formulaForWriter
          : undefined;
    if (!fix) continue;
    const before = entry.data.toString('utf8');
    const after = fix(before);
    if (after === before) continue;
    entry.data = Buffer.from(after, 'utf8');
    changed = true;
  }
  if (changed) await writeEntries(entries, odt);
}
