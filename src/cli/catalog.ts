import type { Command } from 'commander';
import { resolveFormat } from '../formats/index.js';
import { listCatalog } from '../plan/index.js';
import type { Plan } from '../plan/types.js';
import { exitWithUsageCode } from './convert-io.js';

interface CatalogFlags {
  from?: string;
  to?: string;
  family?: string;
  json?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('catalog')
    .description('List the conversion pairs the installed engines can do.')
    .option('--from <format>', 'only pairs from this format')
    .option('--to <format>', 'only pairs to this format')
    .option('--family <family>', 'only pairs of this family (document, image, ocr, voice...)')
    .option('--json', 'print JSON')
    .action(async (flags: CatalogFlags) => {
      const plans = filterPlans(await listCatalog(), flags);
      if (flags.json) console.log(JSON.stringify(catalogJson(plans), null, 2));
      else console.log(catalogTable(plans));
    });
  exitWithUsageCode(cmd);
}

function id(name: string | undefined): string | undefined {
  return name === undefined ? undefined : (resolveFormat(name)?.id ?? name.toLowerCase());
}

export function filterPlans(plans: Plan[], flags: CatalogFlags): Plan[] {
  const from = id(flags.from);
  const to = id(flags.to);
  return plans.filter(
    (p) => (!from || p.from === from) && (!to || p.to === to) && (!flags.family || p.family === flags.family),
  );
}

/** Engines of a plan as `libreoffice > poppler` (first engine of each step). */
export function stepEngines(plan: Plan): string {
  return plan.steps.map((s) => s.engines[0]).join(' > ');
}

export function familyCounts(plans: Plan[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const p of plans) counts[p.family] = (counts[p.family] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

function catalogJson(plans: Plan[]) {
  return {
    count: plans.length,
    families: familyCounts(plans),
    conversions: plans.map((p) => ({
      key: p.key,
      from: p.from,
      to: p.to,
      family: p.family,
      lossy: p.lossy,
      cost: p.cost,
      options: p.options,
      steps: p.steps.map((s) => ({
        from: s.from,
        to: s.to,
        engines: s.engines,
        multiOutput: Boolean(s.edge.multiOutput),
        options: s.options,
      })),
    })),
  };
}

function catalogTable(plans: Plan[]): string {
  const rows = plans.map((p) => [
    p.key,
    p.family,
    p.lossy ? 'lossy' : 'lossless',
    stepEngines(p),
    p.options.join(',') || '-',
  ]);
  const head = ['KEY', 'FAMILY', 'LOSSY', 'STEPS', 'OPTIONS (-O)'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const counts = Object.entries(familyCounts(plans))
    .map(([f, n]) => `${f} ${n}`)
    .join(', ');
  return [
    line(head),
    ...rows.map(line),
    '',
    `${plans.length} conversions${counts ? ` (${counts})` : ''}`,
  ].join('\n');
}
