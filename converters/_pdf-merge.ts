import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepContext } from '../src/engine/contract.js';

/**
 * The outline of a merged PDF, written with qpdf's own JSON (read with `--json`, written back with
 * `--update-from-json`): one bookmark per input, named by its file, with the input's own bookmarks
 * nested under it and pointing at its pages where they landed in the merge. `qpdf --pages` keeps
 * pages, annotations and form fields of every input (fields that share a name are renamed,
 * `name+1`), but no outline: that is what this adds.
 */

/** One bookmark of an input, as `qpdf --json=2 --json-key=outlines` gives it. */
export interface InputOutline {
  title: string;
  dest: unknown;
  destpageposfrom1: number | null;
  open: boolean;
  kids: InputOutline[];
}

/** What the merge needs to know of one input: its bookmark's title, pages and own outline. */
export interface MergedInput {
  title: string;
  pages: number;
  outline: InputOutline[];
}

/** Runs qpdf with an argument list, its stdout returned (the converter's runner). */
export type QpdfRun = (args: readonly string[], ctx: StepContext) => Promise<string>;

interface PdfJson {
  pages?: { object: string }[];
  outlines?: InputOutline[];
  qpdf?: [{ maxobjectid: number }, Record<string, { value: Record<string, unknown> }>];
}

async function json(run: QpdfRun, args: readonly string[], ctx: StepContext): Promise<PdfJson> {
  return JSON.parse(await run(['--json=2', ...args], ctx)) as PdfJson;
}

/** An input's page count and outline. */
export async function readInput(
  run: QpdfRun,
  path: string,
  title: string,
  ctx: StepContext,
): Promise<MergedInput> {
  const j = await json(run, ['--json-key=pages', '--json-key=outlines', path], ctx);
  return { title, pages: j.pages?.length ?? 0, outline: j.outlines ?? [] };
}

/** qpdf JSON for a text string (`u:` is qpdf's prefix for a string given as Unicode). */
const text = (s: string) => `u:${s.replace(/[\0-\x1f\x7f]/g, ' ').slice(0, 500)}`;

/**
 * A bookmark's destination in the merge: the same place on the page it pointed at, shifted by the
 * pages before its input; the page's top when the input's destination had no view of its own.
 */
function destination(item: InputOutline, offset: number, pageRefs: readonly string[]): unknown[] | null {
  const pos = item.destpageposfrom1;
  const page = pos ? pageRefs[offset + pos - 1] : undefined;
  if (!page) return null;
  const view =
    Array.isArray(item.dest) && item.dest.length > 1 ? item.dest.slice(1) : ['/XYZ', null, null, null];
  return [page, ...view];
}

interface Node {
  title: string;
  dest: unknown[] | null;
  open: boolean;
  kids: Node[];
}

function nodesOf(items: readonly InputOutline[], offset: number, pageRefs: readonly string[]): Node[] {
  return items.map((i) => ({
    title: i.title,
    dest: destination(i, offset, pageRefs),
    open: i.open,
    kids: nodesOf(i.kids, offset, pageRefs),
  }));
}

/** The outline tree of a merge: one node per input at its first page, its own bookmarks under it. */
export function mergedOutline(inputs: readonly MergedInput[], pageRefs: readonly string[]): Node[] {
  let offset = 0;
  const nodes: Node[] = [];
  for (const input of inputs) {
    const first = pageRefs[offset];
    nodes.push({
      title: input.title,
      dest: first ? [first, '/XYZ', null, null, null] : null,
      open: false,
      kids: nodesOf(input.outline, offset, pageRefs),
    });
    offset += input.pages;
  }
  return nodes;
}

/** Visible descendants of a node list (the /Count of an open item). */
function visible(nodes: readonly Node[]): number {
  return nodes.reduce((n, k) => n + 1 + (k.open ? visible(k.kids) : 0), 0);
}

/**
 * The objects of an outline tree as qpdf JSON (`obj:N 0 R` keys), numbered from `next`, under
 * the parent `parent`. Returns the first and last item references.
 */
function writeItems(
  nodes: readonly Node[],
  parent: string,
  objects: Record<string, { value: Record<string, unknown> }>,
  next: { id: number },
): { first?: string; last?: string } {
  const refs = nodes.map(() => `${next.id++} 0 R`);
  nodes.forEach((node, i) => {
    const ref = refs[i]!;
    const value: Record<string, unknown> = { '/Title': text(node.title), '/Parent': parent };
    if (node.dest) value['/Dest'] = node.dest;
    if (i > 0) value['/Prev'] = refs[i - 1];
    if (i < refs.length - 1) value['/Next'] = refs[i + 1];
    const kids = writeItems(node.kids, ref, objects, next);
    if (kids.first) {
      value['/First'] = kids.first;
      value['/Last'] = kids.last;
      const count = visible(node.kids);
      value['/Count'] = node.open ? count : -count;
    }
    objects[`obj:${ref}`] = { value };
  });
  return { first: refs[0], last: refs.at(-1) };
}

/**
 * Writes the outline of `inputs` into the merged PDF `merged`, giving `output`. The catalog gets
 * `/Outlines` and opens with the bookmarks shown.
 */
export async function writeOutline(
  run: QpdfRun,
  merged: string,
  output: string,
  inputs: readonly MergedInput[],
  ctx: StepContext,
  writeArgs: readonly string[],
): Promise<void> {
  const j = await json(run, ['--json-key=pages', '--json-key=qpdf', '--json-object=trailer', merged], ctx);
  const pageRefs = (j.pages ?? []).map((p) => p.object);
  const [head, objects] = j.qpdf ?? [];
  const root = objects?.['trailer']?.value['/Root'];
  if (!head || typeof root !== 'string') throw new Error('qpdf gave no catalog for the merged PDF');
  const catalog = (await json(run, ['--json-key=qpdf', `--json-object=${root}`, merged], ctx)).qpdf?.[1]?.[
    `obj:${root}`
  ]?.value;
  if (!catalog) throw new Error('qpdf gave no catalog for the merged PDF');
  const next = { id: head.maxobjectid + 1 };
  const outlinesRef = `${next.id++} 0 R`;
  const written: Record<string, { value: Record<string, unknown> }> = {};
  const nodes = mergedOutline(inputs, pageRefs);
  const { first, last } = writeItems(nodes, outlinesRef, written, next);
  written[`obj:${outlinesRef}`] = {
    value: { '/Type': '/Outlines', '/First': first, '/Last': last, '/Count': visible(nodes) },
  };
  written[`obj:${root}`] = {
    value: { ...catalog, '/Outlines': outlinesRef, '/PageMode': '/UseOutlines' },
  };
  const update = join(ctx.workDir, 'outline.json');
  const body = {
    qpdf: [
      {
        jsonversion: 2,
        pushedinheritedpageresources: false,
        calledgetallpages: false,
        maxobjectid: next.id - 1,
      },
      written,
    ],
  };
  await writeFile(update, JSON.stringify(body));
  await run([merged, `--update-from-json=${update}`, ...writeArgs, output], ctx);
}
