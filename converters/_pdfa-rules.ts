import type { StepContext } from '../src/engine/contract.js';
import { FileconvError } from '../src/errors/index.js';
import { findBinary, runProcess } from '../src/run/process.js';
import { popplerTool } from './_pdf.js';

/**
 * The rules of PDF/A-2b (ISO 19005-2) this machine can check by reading a file's structure: its
 * objects as qpdf's JSON, its XMP packet and fonts as poppler reads them. Each rule is named as the
 * timeline states it; what no rule here covers (colour spaces, annotation appearances, the XMP
 * schema, font widths...) is not claimed: there is no full validator (veraPDF) in Debian.
 * Transparency, which PDF/A-1 forbids, is allowed by PDF/A-2, so it is no rule of 2b.
 */

type Json = unknown;
type Dict = Record<string, Json>;
type Objects = Record<string, { value?: Json; stream?: { dict?: Dict } }>;

const isDict = (v: Json): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);

/** ISO 19005-2 6.5.1: actions a PDF/A file may not have. */
const FORBIDDEN_ACTIONS = new Set([
  '/Launch',
  '/Sound',
  '/Movie',
  '/ResetForm',
  '/ImportData',
  '/JavaScript',
  '/Hide',
  '/SetOCGState',
  '/Rendition',
  '/Trans',
  '/GoTo3DView',
]);

/** What was read of one file, once, for every rule. */
export interface PdfaFacts {
  /** `pdfinfo -meta`: the XMP packet. */
  meta: string;
  objects: Objects;
  /** `pdffonts` rows. */
  fonts: string[];
}

export interface PdfaRule {
  /** As the timeline says it: "no encryption". */
  name: string;
  /** What falls short, or undefined when the rule holds. */
  check(facts: PdfaFacts): string | undefined;
}

function xmpField(meta: string, name: string): string | undefined {
  return new RegExp(`pdfaid:${name}(?:=["']([^"']*)["']|>([^<]*)<)`)
    .exec(meta)
    ?.slice(1)
    .find((v) => v !== undefined);
}

const resolve = (v: Json, objects: Objects): Json => (typeof v === 'string' ? objects[`obj:${v}`]?.value : v);

function catalogOf(objects: Objects): Dict | undefined {
  const trailer = objects.trailer?.value;
  const root = isDict(trailer) ? resolve(trailer['/Root'], objects) : undefined;
  return isDict(root) ? root : undefined;
}

/** Every dictionary of the file, stream dictionaries included. */
function* dictionaries(objects: Objects): Generator<Dict> {
  const walk = function* (v: Json): Generator<Dict> {
    if (Array.isArray(v)) for (const x of v) yield* walk(x);
    else if (isDict(v)) {
      yield v;
      for (const x of Object.values(v)) yield* walk(x);
    }
  };
  for (const o of Object.values(objects)) {
    yield* walk(o.value);
    if (o.stream?.dict) yield* walk(o.stream.dict);
  }
}

export const PDFA_2B_RULES: readonly PdfaRule[] = [
  {
    name: 'XMP identification (pdfaid:part 2, conformance B)',
    check: ({ meta }) => {
      if (xmpField(meta, 'part') !== '2') return 'the XMP does not say pdfaid:part 2';
      if (xmpField(meta, 'conformance')?.toUpperCase() !== 'B') return 'the XMP does not say conformance B';
      return undefined;
    },
  },
  {
    name: 'an output intent (GTS_PDFA1 with an ICC profile)',
    check: ({ objects }) => {
      const intents = resolve(catalogOf(objects)?.['/OutputIntents'], objects);
      if (!Array.isArray(intents) || intents.length === 0) return 'it has no output intent';
      const pdfa = intents.map((i) => resolve(i, objects)).find((i) => isDict(i) && i['/S'] === '/GTS_PDFA1');
      if (!isDict(pdfa)) return 'no output intent is of type GTS_PDFA1';
      if (typeof pdfa['/DestOutputProfile'] !== 'string') return 'the output intent has no ICC profile';
      return undefined;
    },
  },
  {
    name: 'every font embedded',
    check: ({ fonts }) => {
      const bare = fonts.filter((row) => / no\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/.test(row));
      return bare.length > 0 ? `${bare.length} font(s) are not embedded` : undefined;
    },
  },
  {
    name: 'no encryption',
    check: ({ objects }) => {
      const trailer = objects.trailer?.value;
      return isDict(trailer) && '/Encrypt' in trailer ? 'it is encrypted' : undefined;
    },
  },
  {
    name: 'no JavaScript, Launch or other forbidden actions, no additional actions on the document',
    check: ({ objects }) => {
      const catalog = catalogOf(objects);
      if (catalog && '/AA' in catalog) return 'the document catalog has additional actions (/AA)';
      const names = resolve(catalog?.['/Names'], objects);
      if (isDict(names) && '/JavaScript' in names) return 'it has document JavaScript';
      for (const d of dictionaries(objects)) {
        // No /S of a group, mask, output intent or page transition shares a name with these.
        if (typeof d['/S'] === 'string' && FORBIDDEN_ACTIONS.has(d['/S']))
          return `it has a ${d['/S'].slice(1)} action`;
      }
      return undefined;
    },
  },
];

/** Reads what the rules need: one run each of qpdf, `pdfinfo -meta` and `pdffonts`. */
export async function readPdfaFacts(pdf: string, ctx: StepContext): Promise<PdfaFacts> {
  const qpdf = findBinary(['qpdf']);
  if (!qpdf) throw new FileconvError('CONVERT_FAILED', 'qpdf is needed to check a PDF/A result.');
  const { stdout } = await runProcess(qpdf, ['--json=2', '--json-key=qpdf', pdf], ctx);
  const objects = (JSON.parse(stdout) as { qpdf: [unknown, Objects] }).qpdf[1];
  const meta = (await runProcess(popplerTool('pdfinfo'), ['-meta', pdf], ctx)).stdout;
  const fonts = (await runProcess(popplerTool('pdffonts'), [pdf], ctx)).stdout
    .split('\n')
    .slice(2)
    .filter((row) => row.trim() !== '');
  return { meta, objects, fonts };
}
