import { type ConversionEdge, type Converter, edgeOptionNames } from '../engine/contract.js';
import type { ConversionOptions } from '../engine/options.js';
import type { EngineStatus } from '../engine/registry.js';
import { DOOR_OPTIONS } from '../engine/shared-options.js';
import { type FormatId, resolveFormat } from '../formats/index.js';
import { isTextFormat } from '../formats/text.js';
import { type ContentKind, nextKind, sourceKind } from './meaning.js';
import type { Plan, PlannedStep } from './types.js';

/** Longest path the planner considers. */
export const MAX_STEPS = 3;

/** Engines as the planner takes them: probed statuses (only ok ones count) or usable converters. */
export type PlannerEngines = readonly (EngineStatus | Converter)[];

/** One engine's offer of a step, with its position in the engine file order for tie-breaks. */
interface Offer {
  converter: Converter;
  order: number;
  edge: ConversionEdge;
}

/** The conversion graph: for every source format, its outgoing steps (offers grouped by target). */
export interface ConversionGraph {
  converters: Converter[];
  /** from -> to -> offers, best first. */
  steps: Map<FormatId, Map<FormatId, Offer[]>>;
  /**
   * Steps that keep the format (pdf to pdf: pages, rotation, passwords): operations on a file,
   * planned on their own, never part of a longer path.
   */
  same: Map<FormatId, Offer[]>;
}

function usableConverters(engines: PlannerEngines): Converter[] {
  const out: Converter[] = [];
  for (const e of engines) {
    if ('converter' in e && 'probe' in e && typeof e.probe === 'object') {
      if (e.probe.ok) out.push(e.converter);
    } else {
      out.push(e as Converter);
    }
  }
  return out;
}

// Lossless first, then cheaper, then engine file order: the first offer is the step's engine.
function compareOffers(a: Offer, b: Offer): number {
  return Number(a.edge.lossy) - Number(b.edge.lossy) || a.edge.cost - b.edge.cost || a.order - b.order;
}

const graphs = new WeakMap<PlannerEngines, ConversionGraph>();

/** Builds (once per engines array) the graph of steps offered by usable engines. */
export function buildGraph(engines: PlannerEngines): ConversionGraph {
  const cached = graphs.get(engines);
  if (cached) return cached;
  const converters = usableConverters(engines);
  const steps = new Map<FormatId, Map<FormatId, Offer[]>>();
  const same = new Map<FormatId, Offer[]>();
  converters.forEach((converter, order) => {
    for (const edge of converter.edges) {
      if (edge.from === edge.to) {
        const offers = same.get(edge.from) ?? [];
        if (!offers.some((o) => o.converter === converter)) offers.push({ converter, order, edge });
        same.set(edge.from, offers);
        continue;
      }
      const byTarget = steps.get(edge.from) ?? new Map<FormatId, Offer[]>();
      steps.set(edge.from, byTarget);
      const offers = byTarget.get(edge.to) ?? [];
      // One offer per engine and pair: a converter declaring a pair twice keeps its first edge.
      if (!offers.some((o) => o.converter === converter)) offers.push({ converter, order, edge });
      byTarget.set(edge.to, offers);
    }
  });
  for (const byTarget of steps.values()) for (const offers of byTarget.values()) offers.sort(compareOffers);
  for (const offers of same.values()) offers.sort(compareOffers);
  const graph = { converters, steps, same };
  graphs.set(engines, graph);
  return graph;
}

/** A candidate path while searching: its steps' offers (eligible engines, best first). */
interface Candidate {
  formats: FormatId[];
  offers: Offer[][];
  lossy: boolean;
  cost: number;
  /** What the content is after the last step (see meaning.ts). */
  kind: ContentKind;
}

function rankKey(c: Candidate): (number | string)[] {
  // Tie-break after lossless/cost/steps: engine file order step by step, then the formats passed through.
  return [...c.offers.map((o) => o[0]!.order), ...c.formats];
}

const readsWithOcr = (c: Candidate) => c.offers.some((step) => step.some((o) => o.edge.family === 'ocr'));

/** Whether `a` is the better path; with `ocr` asked for, a path with an OCR step comes first. */
function better(a: Candidate, b: Candidate, ocr = false): boolean {
  if (ocr && readsWithOcr(a) !== readsWithOcr(b)) return readsWithOcr(a);
  if (a.lossy !== b.lossy) return !a.lossy;
  if (a.cost !== b.cost) return a.cost < b.cost;
  if (a.offers.length !== b.offers.length) return a.offers.length < b.offers.length;
  const ka = rankKey(a);
  const kb = rankKey(b);
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
    const x = ka[i]!;
    const y = kb[i]!;
    if (x !== y) return typeof x === 'number' && typeof y === 'number' ? x < y : String(x) < String(y);
  }
  return false;
}

/**
 * Best path to every format reachable from `from` in at most MAX_STEPS steps. A multiOutput step
 * (one file per page) may only end a path, so engines whose edge is multiOutput are dropped from
 * intermediate steps. A step is taken only where it keeps the meaning of the content (meaning.ts),
 * and an `alone` step only as the whole path.
 */
function bestPathsFrom(
  graph: ConversionGraph,
  from: FormatId,
  options: ConversionOptions = {},
): Map<FormatId, Candidate> {
  const best = new Map<FormatId, Candidate>();
  const walk = (path: Candidate) => {
    const here = path.formats[path.formats.length - 1]!;
    const byTarget = graph.steps.get(here);
    if (!byTarget) return;
    for (const [to, all] of byTarget) {
      if (path.formats.includes(to)) continue;
      const offers = all.filter((o) => !o.edge.skipWhen?.(options));
      if (offers.length === 0) continue;
      const alone = offers[0]!.edge.alone === true;
      if (alone && path.offers.length > 0) continue;
      const kind = nextKind(path.kind, offers[0]!.edge, path.offers.length);
      if (!kind) continue;
      const next: Candidate = {
        formats: [...path.formats, to],
        offers: [...path.offers, offers],
        lossy: path.lossy || offers[0]!.edge.lossy,
        cost: path.cost + offers[0]!.edge.cost,
        kind,
      };
      const current = best.get(to);
      if (!current || better(next, current, options.ocr === true)) best.set(to, next);
      if (next.offers.length < MAX_STEPS && !alone) {
        const single = offers.filter((o) => !o.edge.multiOutput);
        if (single.length === 0) continue;
        const singleKind = nextKind(path.kind, single[0]!.edge, path.offers.length);
        if (!singleKind) continue;
        walk({
          ...next,
          kind: singleKind,
          offers: [...path.offers, single],
          lossy: path.lossy || single[0]!.edge.lossy,
          cost: path.cost + single[0]!.edge.cost,
        });
      }
    }
  };
  walk({ formats: [from], offers: [], lossy: false, cost: 0, kind: sourceKind(from) });
  return best;
}

function familyOf(steps: PlannedStep[]): Plan['family'] {
  const special = steps.find((s) => s.edge.family === 'ocr' || s.edge.family === 'voice');
  return (special ?? steps[0]!).edge.family;
}

function toPlan(c: Candidate): Plan {
  const steps: PlannedStep[] = c.offers.map((offers, i) => ({
    from: c.formats[i]!,
    to: c.formats[i + 1]!,
    engines: offers.map((o) => o.converter.name),
    edge: offers[0]!.edge,
    edges: offers.map((o) => o.edge),
    options: sortedUnion(offers.map((o) => edgeOptionNames(o.converter, o.edge))),
  }));
  const from = c.formats[0]!;
  const to = c.formats[c.formats.length - 1]!;
  // A text source is read at the door, before the first step, so it takes the door's options too.
  const door = isTextFormat(from) ? Object.keys(DOOR_OPTIONS) : [];
  const options = sortedUnion([...steps.map((s) => s.options), door]);
  return {
    key: `${from}-${to}`,
    from,
    to,
    family: familyOf(steps),
    lossy: c.lossy,
    cost: c.cost,
    steps,
    options,
  };
}

function sortedUnion(lists: readonly (readonly string[])[]): string[] {
  return [...new Set(lists.flat())].sort();
}

function canonical(id: FormatId): FormatId {
  return resolveFormat(id)?.id ?? id;
}

/**
 * The cheapest plan from one format to another, or undefined when the pair is not in the catalog.
 * Options leave out the steps whose edge skips them (see ConversionEdge.skipWhen), and `ocr: true`
 * prefers a path that reads the pages with OCR over any that does not.
 */
export function planConversion(
  from: FormatId,
  to: FormatId,
  engines: PlannerEngines,
  options?: ConversionOptions,
): Plan | undefined {
  const f = canonical(from);
  const t = canonical(to);
  const graph = buildGraph(engines);
  if (f === t) {
    const same = sameFormatPath(graph, f, options);
    return same && toPlan(same);
  }
  const plain = !options || Object.keys(options).length === 0;
  const found = (plain ? plainPathsFrom(graph, f) : bestPathsFrom(graph, f, options)).get(t);
  return found && toPlan(found);
}

/**
 * Paths without options, which most conversions ask for, kept per graph and source format: a
 * server plans every conversion it runs, and the walk costs more than a small conversion.
 */
const plainPaths = new WeakMap<ConversionGraph, Map<FormatId, Map<FormatId, Candidate>>>();

function plainPathsFrom(graph: ConversionGraph, from: FormatId): Map<FormatId, Candidate> {
  let byFrom = plainPaths.get(graph);
  if (!byFrom) {
    byFrom = new Map();
    plainPaths.set(graph, byFrom);
  }
  let paths = byFrom.get(from);
  if (!paths) {
    paths = bestPathsFrom(graph, from);
    byFrom.set(from, paths);
  }
  return paths;
}

/** The one-step plan of an operation that keeps the format, with the steps its options leave. */
function sameFormatPath(
  graph: ConversionGraph,
  format: FormatId,
  options: ConversionOptions = {},
): Candidate | undefined {
  const left = (graph.same.get(format) ?? []).filter((o) => !o.edge.skipWhen?.(options));
  // The engines of an operation are alternatives, not a chain: one that runs must honour every
  // option asked of the step. When none honours them all, the best one alone is planned, and the
  // options it lacks are refused (planWithOptions) rather than silently left undone.
  const asked = Object.keys(options).filter((n) =>
    left.some((o) => edgeOptionNames(o.converter, o.edge).includes(n)),
  );
  const complete = left.filter((o) => asked.every((n) => edgeOptionNames(o.converter, o.edge).includes(n)));
  const offers = complete.length > 0 ? complete : left.slice(0, 1);
  const best = offers[0];
  if (!best) return undefined;
  return {
    formats: [format, format],
    offers: [offers],
    lossy: best.edge.lossy,
    cost: best.edge.cost,
    kind: sourceKind(format),
  };
}

/** Every plan the engines allow, sorted by key. */
export function buildCatalog(engines: PlannerEngines): Plan[] {
  const graph = buildGraph(engines);
  const plans: Plan[] = [];
  for (const from of graph.steps.keys()) {
    for (const c of bestPathsFrom(graph, from).values()) plans.push(toPlan(c));
  }
  for (const format of graph.same.keys()) {
    const same = sameFormatPath(graph, format);
    if (!same) continue;
    const plan = toPlan(same);
    // Engines that join only when asked (OCRmyPDF for `ocr`) still list what the operation can do.
    const every = (graph.same.get(format) ?? []).map((o) => edgeOptionNames(o.converter, o.edge));
    plans.push({ ...plan, options: sortedUnion([plan.options, ...every]) });
  }
  return plans.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
