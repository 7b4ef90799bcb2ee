import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ConversionEdge, defineConverter } from '../src/engine/contract.js';
import { bool, defineOption, OPERATION_ORDER } from '../src/engine/option-kit.js';
import { optionsFor } from '../src/engine/options.js';
import { password } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';
import { findBinary, probeBinary } from '../src/run/process.js';
import { assertPdfHeader } from './_pdf.js';
import { runQpdf } from './_qpdf-run.js';

/**
 * `sanitize: true`: a PDF without anything that acts or hides beside its pages. Where a rewriting
 * operation only drops what runs by itself (_pdf-active.ts), this removes every action (JavaScript,
 * Launch, links to pages and to the web, form submissions), the document's scripts and embedded
 * files, link and file-attachment annotations, every XMP packet and the document information.
 * Pages, their text, pictures, fonts and form fields stay. The walk is over qpdf's JSON of every
 * object; the changed objects go back with `--update-from-json`, and qpdf writes only what is still
 * reachable, so what was removed is gone from the file.
 */

type Json = unknown;
type Dict = Record<string, Json>;
type Objects = Record<string, { value?: Json; stream?: { dict?: Dict } }>;

const isDict = (v: Json): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Dictionary entries removed wherever they are, each with what it is called on the timeline. */
const REMOVED_KEYS: Readonly<Record<string, string>> = {
  '/OpenAction': 'open action',
  '/AA': 'additional actions',
  '/A': 'action',
  '/Next': 'action',
  '/Metadata': 'XMP metadata',
  '/JavaScript': 'document JavaScript',
  '/EmbeddedFiles': 'embedded files',
  '/URI': 'base URI',
};
/** Annotations that exist to act or to carry a file. */
const REMOVED_ANNOTATIONS = new Set([
  '/Link',
  '/FileAttachment',
  '/Screen',
  '/Movie',
  '/Sound',
  '/RichMedia',
]);

class Sanitizer {
  readonly removed = new Map<string, number>();
  constructor(private readonly objects: Objects) {}

  private note(what: string, n = 1): void {
    this.removed.set(what, (this.removed.get(what) ?? 0) + n);
  }

  private subtype(v: Json): Json {
    const d = typeof v === 'string' ? this.objects[`obj:${v}`]?.value : v;
    return isDict(d) ? d['/Subtype'] : undefined;
  }

  /** Cleans one value in place; true when it changed. */
  clean(v: Json): boolean {
    if (Array.isArray(v)) return v.map((x) => this.clean(x)).some(Boolean);
    if (!isDict(v)) return false;
    let changed = false;
    for (const [key, what] of Object.entries(REMOVED_KEYS)) {
      // /JavaScript and /URI are the entries of the catalog's /Names and the catalog; in an
      // action dictionary /S holds them as values, and the action itself goes with its /A.
      if (key in v) {
        delete v[key];
        this.note(what);
        changed = true;
      }
    }
    if (Array.isArray(v['/Annots'])) {
      const kept = v['/Annots'].filter((a) => !REMOVED_ANNOTATIONS.has(this.subtype(a) as string));
      const gone = v['/Annots'].length - kept.length;
      if (gone > 0) {
        if (kept.length > 0) v['/Annots'] = kept;
        else delete v['/Annots'];
        this.note('link and attachment annotations', gone);
        changed = true;
      }
    }
    for (const child of Object.values(v)) changed = this.clean(child) || changed;
    return changed;
  }
}

function describe(removed: Map<string, number>): string {
  return [...removed].map(([what, n]) => `${what} (${n})`).join(', ');
}

const OPTIONS = {
  password,
  sanitize: defineOption(
    bool(),
    'remove active and hidden content from a PDF: JavaScript, every action and link, embedded files, XMP and document information (pages, text, pictures and form fields stay)',
    { order: OPERATION_ORDER.sanitize },
  ),
};

const edges: ConversionEdge[] = [
  { from: 'pdf', to: 'pdf', family: 'document', lossy: false, cost: 4, skipWhen: (o) => o.sanitize !== true },
];

export default defineConverter({
  name: 'sanitize',
  description: 'qpdf: PDFs without JavaScript, actions, links, embedded files, XMP and document information',
  packages: ['qpdf'],
  edges,
  options: OPTIONS,
  probe: () => probeBinary(['qpdf'], ['--version'], /qpdf version (\S+)/),
  async run({ input, outDir, options: given }, ctx) {
    const o = optionsFor(OPTIONS, given);
    const qpdf = findBinary(['qpdf']);
    if (!qpdf) throw new FileconvError('CONVERT_FAILED', 'qpdf is not installed.');
    await assertPdfHeader(input);
    const secrets = { password: o.password };
    const json = JSON.parse(await runQpdf(qpdf, ['--json=2', '--json-key=qpdf', input], ctx, secrets)) as {
      qpdf: [Dict, Objects];
    };
    const [header, objects] = json.qpdf;
    const sanitizer = new Sanitizer(objects);
    const update: Objects = {};
    for (const [id, object] of Object.entries(objects)) {
      if (id === 'trailer') continue;
      if (isDict(object) && 'value' in object && sanitizer.clean(object.value))
        update[id] = { value: object.value };
      // A stream's dictionary (a page's XObject with its own /Metadata) is cleaned the same way.
      else if (isDict(object?.stream?.dict) && sanitizer.clean(object.stream.dict))
        update[id] = { stream: { dict: object.stream.dict } };
    }
    const trailer = objects.trailer?.value;
    if (isDict(trailer) && '/Info' in trailer) {
      delete trailer['/Info'];
      update.trailer = { value: trailer };
      sanitizer.removed.set('document information', 1);
    }
    const output = join(outDir, 'output.pdf');
    if (Object.keys(update).length === 0) {
      ctx.log('sanitize: nothing to remove');
      await runQpdf(qpdf, [input, output], ctx, secrets);
      return { files: [output] };
    }
    const file = join(ctx.workDir, 'sanitize-update.json');
    await writeFile(file, JSON.stringify({ qpdf: [header, update] }), { mode: 0o600 });
    await runQpdf(qpdf, [input, `--update-from-json=${file}`, output], ctx, secrets);
    ctx.log(`sanitize: removed ${describe(sanitizer.removed)}`);
    return { files: [output] };
  },
});
