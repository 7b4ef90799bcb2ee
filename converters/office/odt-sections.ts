import { join } from 'node:path';
import { readEntries, writeEntries } from './zip-parts.js';

/** An ODT's body parts that may hold sections. */
const BODY_PART = 'content.xml';
/** A section's tags (not `text:section-source`, which names a linked file and goes with its section). */
const SECTION_TAG = /<text:section(?=[\s>/])[^>]*?\/>|<text:section(?=[\s>])[^>]*>|<\/text:section\s*>/g;

/**
 * A copy of an ODT text document with its sections unwrapped, or undefined when it has none.
 * pandoc's ODT reader drops everything inside a `text:section` (a book's preamble, a licence, a
 * chapter kept in a section), while a section is only a frame for columns or protection around
 * ordinary paragraphs: without it, pandoc reads them like any other.
 */
export async function odtWithoutSections(input: string, workDir: string): Promise<string | undefined> {
  const entries = await readEntries(input).catch(() => undefined);
  const body = entries?.find((e) => e.name === BODY_PART);
  if (!entries || !body) return undefined;
  const xml = body.data.toString('utf8');
  if (xml.search(SECTION_TAG) < 0) return undefined;
  body.data = Buffer.from(xml.replace(SECTION_TAG, ''));
  const copy = join(workDir, 'source.unsectioned.odt');
  await writeEntries(entries, copy);
  return copy;
}
