import type { Command } from 'commander';
import type { Catalog } from '../client/index.js';
import { exitCodeOf } from '../errors/exit-codes.js';
import { resolveFormat } from '../formats/index.js';
import { listCatalog } from '../plan/index.js';
import type { Plan } from '../plan/types.js';
import { errorBody, exitWithUsageCode } from './convert-io.js';
import { addRemoteOptions, type RemoteFlags, remoteClient, remoteOf } from './remote.js';

/**
 * One conversion as the command shows it. A server's catalog (GET /api/public/catalog) names the
 * first engine of each step and no costs, so those fields are absent from a remote listing.
 */
interface Row {
  key: string;
  from: string;
  to: string;
  family: string;
  lossy: boolean;
  cost?: number;
  options: readonly string[];
  steps: {
    from: string;
    to: string;
    engines: string[];
    multiOutput?: boolean;
    options?: readonly string[];
  }[];
}

interface CatalogFlags extends RemoteFlags {
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
    .option('--json', 'print JSON');
  addRemoteOptions(cmd).action(async (flags: CatalogFlags) => {
    let all: Row[];
    try {
      const remote = remoteOf(flags);
      all = remote
        ? remoteRows(await (await remoteClient(remote)).catalog())
        : localRows(await listCatalog());
    } catch (e) {
      const error = errorBody(e);
      console.error(`fileconv catalog: ${error.message}`);
      process.exitCode = exitCodeOf(error.code);
      return;
    }
    const rows = filterPlans(all, flags);
    if (flags.json) console.log(JSON.stringify(catalogJson(rows), null, 2));
    else console.log(catalogTable(rows));
  });
  exitWithUsageCode(cmd);
}

function localRows(plans: Plan[]): Row[] {
  return plans.map((p) => ({
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
  }));
}

function remoteRows(catalog: Catalog): Row[] {
  return Object.entries(catalog.keys).map(([key, k]) => ({
    key,
    from: k.steps[0]?.from ?? key.split('-')[0]!,
    to: k.steps.at(-1)?.to ?? key.split('-').at(-1)!,
    family: k.family,
    lossy: k.lossy,
    options: k.options,
    steps: k.steps.map((s) => ({ from: s.from, to: s.to, engines: [s.engine] })),
  }));
}

function id(name: string | undefined): string | undefined {
  return name === undefined ? undefined : (resolveFormat(name)?.id ?? name.toLowerCase());
}

export function filterPlans<T extends Row>(plans: T[], flags: CatalogFlags): T[] {
  const from = id(flags.from);
  const to = id(flags.to);
  return plans.filter(
    (p) => (!from || p.from === from) && (!to || p.to === to) && (!flags.family || p.family === flags.family),
  );
}

/** Engines of a plan as `libreoffice > poppler` (first engine of each step). */
export function stepEngines(plan: Row): string {
  return plan.steps.map((s) => s.engines[0]).join(' > ');
}

export function familyCounts(plans: Row[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const p of plans) counts[p.family] = (counts[p.family] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

function catalogJson(rows: Row[]) {
  return { count: rows.length, families: familyCounts(rows), conversions: rows };
}

function catalogTable(plans: Row[]): string {
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
