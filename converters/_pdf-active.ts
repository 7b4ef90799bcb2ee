import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepContext } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';
import { findBinary } from '../src/run/process.js';
import { runQpdf } from './_qpdf-run.js';

/**
 * Active content: what a PDF runs by itself when it is opened or read, rather than shows. An
 * operation that rewrites a PDF (qpdf's operations and merges, Ghostscript's compression, OCR)
 * drops it unless `keep_active_content` is true, and the timeline says what went:
 *
 * - the catalog's `/OpenAction` and every `/AA` (additional actions: on open, close, print, page
 *   view, field focus...);
 * - the document's JavaScript name tree (`/Names /JavaScript`);
 * - every action of type JavaScript, Launch, SubmitForm or ImportData reached from a link or a
 *   field (`/A`) or chained after another action (`/Next`). Links to pages and web addresses stay.
 *
 * The walk is over qpdf's JSON of every object; the changed objects go back with
 * `--update-from-json`, and qpdf writes only what is still reachable, so the removed actions are
 * gone from the file, not merely unlinked.
 */

const ACTIVE_TYPES = new Set(['/JavaScript', '/Launch', '/SubmitForm', '/ImportData']);

type Json = unknown;
type Objects = Record<string, { value?: Json; stream?: unknown }>;
type Dict = Record<string, Json>;

const isDict = (v: Json): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An action's type, whether given inline or as a reference to its object. */
function actionTypes(v: Json, objects: Objects): string[] {
  if (Array.isArray(v)) return v.flatMap((x) => actionTypes(x, objects));
  const d = typeof v === 'string' ? objects[`obj:${v}`]?.value : v;
  return isDict(d) && typeof d['/S'] === 'string' ? [d['/S']] : [];
}

/** Removes active entries from one value, in place; counts what it removed. */
function clean(v: Json, objects: Objects, dropped: Map<string, number>): boolean {
  const note = (what: string) => dropped.set(what, (dropped.get(what) ?? 0) + 1);
  if (Array.isArray(v)) return v.map((x) => clean(x, objects, dropped)).some(Boolean);
  if (!isDict(v)) return false;
  let changed = false;
  for (const [key, what] of [
    ['/OpenAction', 'OpenAction'],
    ['/AA', 'additional actions (/AA)'],
  ] as const) {
    if (key in v) {
      delete v[key];
      note(what);
      changed = true;
    }
  }
  // In a /Names dictionary, /JavaScript is the document's scripts; in an action, its type.
  if ('/JavaScript' in v && v['/S'] === undefined) {
    delete v['/JavaScript'];
    note('document JavaScript');
    changed = true;
  }
  for (const key of ['/A', '/Next']) {
    const active = actionTypes(v[key], objects).filter((t) => ACTIVE_TYPES.has(t));
    if (active.length > 0) {
      delete v[key];
      for (const t of active) note(`${t.slice(1)} action`);
      changed = true;
    }
  }
  for (const child of Object.values(v)) changed = clean(child, objects, dropped) || changed;
  return changed;
}

/** What a list of drops reads as on the timeline: `OpenAction, Launch action (2)`. */
function describe(dropped: Map<string, number>): string {
  return [...dropped].map(([what, n]) => (n > 1 ? `${what} (${n})` : what)).join(', ');
}

/**
 * The PDF to work on: `input` itself when it has no active content or the request keeps it,
 * else a copy without it in the step's folder (opened with `password`, kept protected as it was).
 */
export async function withoutActiveContent(
  input: string,
  o: { keep_active_content?: boolean; password?: string },
  ctx: StepContext,
): Promise<string> {
  if (o.keep_active_content === true) return input;
  const qpdf = findBinary(['qpdf']);
  if (!qpdf) throw new FileconvError('CONVERT_FAILED', 'qpdf is needed to drop active content from a PDF.');
  const secrets = { password: o.password };
  const json = JSON.parse(await runQpdf(qpdf, ['--json=2', '--json-key=qpdf', input], ctx, secrets)) as {
    qpdf: [Record<string, unknown>, Objects];
  };
  const [header, objects] = json.qpdf;
  const dropped = new Map<string, number>();
  const changed: Objects = {};
  for (const [id, object] of Object.entries(objects)) {
    if (id === 'trailer' || !isDict(object) || !('value' in object)) continue;
    if (clean(object.value, objects, dropped)) changed[id] = { value: object.value };
  }
  if (Object.keys(changed).length === 0) return input;
  const update = join(ctx.workDir, `active-content-${crypto.randomUUID()}.json`);
  await writeFile(update, JSON.stringify({ qpdf: [header, changed] }));
  const output = join(ctx.workDir, `without-active-content-${crypto.randomUUID()}.pdf`);
  await runQpdf(qpdf, [input, `--update-from-json=${update}`, output], ctx, secrets);
  ctx.log(`active content dropped: ${describe(dropped)} (keep it with keep_active_content=true)`);
  return output;
}
