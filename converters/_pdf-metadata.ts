import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepContext } from '../src/engine/contract.js';
import { author, keywords, strip_metadata, subject, title } from '../src/engine/shared-options.js';
import { FileconvError } from '../src/errors/index.js';

/**
 * A PDF's document information (title, author, subject, keywords) set, or all of its metadata
 * stripped, by qpdf's --update-from-json: the Info dictionary and the catalog's XMP packet are
 * replaced in qpdf's model of the file, which qpdf then writes anew, so no earlier revision (where
 * an incremental update would leave the old values) survives in the output.
 */

export const METADATA_OPTIONS = {
  title,
  author,
  subject,
  keywords,
  strip_metadata,
};
type Fields = {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  strip_metadata?: boolean;
};

const FIELDS = [
  ['title', '/Title'],
  ['author', '/Author'],
  ['subject', '/Subject'],
  ['keywords', '/Keywords'],
] as const;

export const wantsMetadata = (o: Fields): boolean =>
  o.strip_metadata === true || FIELDS.some(([name]) => o[name] !== undefined);

type Dict = Record<string, unknown>;

/** Reads the `objects` of qpdf's JSON for the given object ids ("trailer", "12 0 R"...). */
type ReadObjects = (ids: string[]) => Promise<{ header: Dict; objects: Record<string, { value?: unknown }> }>;

/** `12 0 R` -> `12` (the form --json-object takes); undefined for anything else. */
function objectNumber(ref: unknown): string | undefined {
  return typeof ref === 'string' ? /^(\d+) 0 R$/.exec(ref)?.[1] : undefined;
}

function asDict(v: unknown): Dict {
  return v && typeof v === 'object' && !Array.isArray(v) ? { ...(v as Dict) } : {};
}

/**
 * Writes the JSON update for qpdf into the step's folder and returns its path: the new Info
 * dictionary (new values over the old ones, or only the new ones when stripping) and, when
 * stripping or when fields were set, the catalog without its XMP packet (which would otherwise
 * go on saying the old title).
 */
export async function metadataUpdate(o: Fields, read: ReadObjects, ctx: StepContext): Promise<string> {
  const first = await read(['trailer']);
  const trailer = asDict(first.objects.trailer?.value);
  const rootId = objectNumber(trailer['/Root']);
  if (!rootId) throw new FileconvError('MALFORMED_DOCUMENT', 'The PDF has no document catalog.');
  const infoId = objectNumber(trailer['/Info']);
  const second = await read([rootId, ...(infoId ? [infoId] : [])]);
  const root = asDict(second.objects[`obj:${rootId} 0 R`]?.value);
  const oldInfo = infoId && !o.strip_metadata ? asDict(second.objects[`obj:${infoId} 0 R`]?.value) : {};

  const info: Dict = { ...oldInfo };
  for (const [name, key] of FIELDS) {
    const value = o[name];
    if (value !== undefined) info[key] = `u:${value}`;
  }
  const update: Dict = {};
  if ('/Metadata' in root) {
    delete root['/Metadata'];
    update[`obj:${rootId} 0 R`] = { value: root };
    ctx.log(
      o.strip_metadata
        ? 'XMP metadata removed'
        : 'the XMP metadata, which would contradict the new fields, removed',
    );
  }
  if (Object.keys(info).length > 0) {
    const id = infoId && !o.strip_metadata ? infoId : String(Number(first.header.maxobjectid ?? 0) + 1);
    update[`obj:${id} 0 R`] = { value: info };
    trailer['/Info'] = `${id} 0 R`;
  } else {
    delete trailer['/Info'];
  }
  update.trailer = { value: trailer };
  const file = join(ctx.workDir, 'metadata-update.json');
  await writeFile(file, JSON.stringify({ qpdf: [first.header, update] }), { mode: 0o600 });
  return file;
}
