import { join } from 'node:path';
import { type Entry, readEntries, writeEntries } from './zip-parts.js';

/**
 * Text that a DOCX or ODT keeps outside its body's paragraphs: text boxes and shapes, headers and
 * footers, comments. pandoc's readers skip all of them (footnotes they read), so a text or HTML
 * made from the document lost the words a reader saw in a box or a header. The copy handed to
 * pandoc has them as ordinary paragraphs: a box's or a comment's after the paragraph it is
 * anchored in, the headers' at the start and the footers' at the end, each distinct one once.
 */

interface Dialect {
  body: string;
  /** Where lifted paragraphs go: after the end of the paragraph that anchored them. */
  paragraphEnd: RegExp;
  /** Elements whose paragraphs are lifted, with the paragraphs they hold (undefined: none). */
  blocks: Array<[RegExp, (block: string) => string | undefined]>;
}

const joined = (re: RegExp, xml: string) => [...xml.matchAll(re)].map((m) => m[1] ?? '').join('');
/** What a box shows: the text box content of its drawing, not its fallback copy for old readers. */
const boxText = (block: string) => {
  const choice = block.replace(/<mc:Fallback\b[\s\S]*?<\/mc:Fallback>/g, '');
  const text = joined(/<w:txbxContent\b[^>]*>([\s\S]*?)<\/w:txbxContent>/g, choice);
  return text || undefined;
};
/** A box that is also a picture stays; its text is lifted after it. */
const keepsPicture = (block: string) => /<a:blip\b|<v:imagedata\b/.test(block);

const DOCX: Dialect = {
  body: 'word/document.xml',
  paragraphEnd: /<\/w:p>/g,
  blocks: [
    [/<mc:AlternateContent\b[\s\S]*?<\/mc:AlternateContent>/g, boxText],
    [/<w:drawing\b[\s\S]*?<\/w:drawing>/g, boxText],
    [/<w:pict\b[\s\S]*?<\/w:pict>/g, boxText],
  ],
};

const odfParagraphs = (xml: string) =>
  [...xml.matchAll(/<text:(p|h)\b[^>]*?(?:\/>|>[\s\S]*?<\/text:\1>)/g)].map((m) => m[0]).join('') ||
  undefined;

const ODT: Dialect = {
  body: 'content.xml',
  paragraphEnd: /<\/text:(?:p|h)>/g,
  blocks: [
    [/<draw:text-box\b[^>]*>([\s\S]*?)<\/draw:text-box>/g, (b) => odfParagraphs(b)],
    [/<draw:(custom-shape|rect|ellipse)\b[\s\S]*?<\/draw:\1>/g, (b) => odfParagraphs(b)],
    [/<office:annotation\b[\s\S]*?<\/office:annotation>/g, (b) => odfParagraphs(b)],
  ],
};

/** Moves each block's paragraphs after the paragraph it sits in; the block goes unless it is a picture. */
function liftBlocks(xml: string, dialect: Dialect): { xml: string; lifted: number } {
  const lifted: string[] = [];
  let marked = xml;
  for (const [block, inner] of dialect.blocks) {
    marked = marked.replace(block, (b) => {
      const paragraphs = inner(b);
      if (paragraphs === undefined) return b;
      lifted.push(paragraphs);
      return `${keepsPicture(b) ? b : ''}\u0000${lifted.length - 1}\u0000`;
    });
  }
  if (!lifted.length) return { xml, lifted: 0 };
  const at = new RegExp(`\u0000(\\d+)\u0000|${dialect.paragraphEnd.source}`, 'g');
  let out = '';
  let pending = '';
  let last = 0;
  for (const m of marked.matchAll(at)) {
    out += marked.slice(last, m.index);
    last = m.index + m[0].length;
    if (m[1] !== undefined) pending += lifted[Number(m[1])] ?? '';
    else {
      out += m[0] + pending;
      pending = '';
    }
  }
  return { xml: out + marked.slice(last) + pending, lifted: lifted.length };
}

/** Paragraphs moved into the body lose what pointed into their own part: pictures and links. */
const portable = (xml: string) =>
  xml
    .replace(
      /<w:drawing\b[\s\S]*?<\/w:drawing>|<w:pict\b[\s\S]*?<\/w:pict>|<w:object\b[\s\S]*?<\/w:object>/g,
      '',
    )
    .replace(/<mc:AlternateContent\b[\s\S]*?<\/mc:AlternateContent>/g, '')
    .replace(/<\/?w:hyperlink\b[^>]*>/g, '');

const shownText = (xml: string) => xml.replace(/<[^>]*>/g, '').trim();

/** Each distinct non-empty piece once, in order. */
function distinct(pieces: string[]): string {
  const seen = new Set<string>();
  return pieces
    .filter((p) => {
      const text = shownText(p);
      if (!text || seen.has(text)) return false;
      seen.add(text);
      return true;
    })
    .join('');
}

function docxFurniture(entries: Entry[]): { head: string; tail: string } {
  const part = (re: RegExp) =>
    entries
      .filter((e) => re.test(e.name))
      .sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }))
      .map((e) => e.data.toString('utf8'));
  const inner = (xml: string, root: string) =>
    portable(liftBlocks(new RegExp(`<${root}\\b[^>]*>([\\s\\S]*)</${root}>`).exec(xml)?.[1] ?? '', DOCX).xml);
  const head = distinct(part(/^word\/header\d*\.xml$/).map((x) => inner(x, 'w:hdr')));
  const foot = distinct(part(/^word\/footer\d*\.xml$/).map((x) => inner(x, 'w:ftr')));
  return { head, tail: foot };
}

/** A DOCX's comments by id: their paragraphs go after the paragraph each is anchored in. */
function docxComments(entries: Entry[]): Dialect {
  const xml = entries.find((e) => e.name === 'word/comments.xml')?.data.toString('utf8') ?? '';
  const byId = new Map(
    [...xml.matchAll(/<w:comment\b[^>]*?w:id="(\d+)"[^>]*>([\s\S]*?)<\/w:comment>/g)].map((m) => [
      m[1],
      portable(m[2] ?? ''),
    ]),
  );
  const anchor = /<w:commentReference\b[^>]*?w:id="(\d+)"[^>]*\/>/g;
  const comment = (ref: string) => byId.get(/w:id="(\d+)"/.exec(ref)?.[1] ?? '') || undefined;
  return { ...DOCX, blocks: [...DOCX.blocks, [anchor, comment]] };
}

function odtFurniture(entries: Entry[]): { head: string; tail: string } {
  const styles = entries.find((e) => e.name === 'styles.xml')?.data.toString('utf8') ?? '';
  const pieces = (tag: string) =>
    [
      ...styles.matchAll(
        new RegExp(`<style:${tag}(?:-first|-left)?\\b[^>]*>([\\s\\S]*?)</style:${tag}`, 'g'),
      ),
    ].map((m) => liftBlocks(odfParagraphs(m[1] ?? '') ?? '', ODT).xml);
  return { head: distinct(pieces('header')), tail: distinct(pieces('footer')) };
}

function withFurniture(xml: string, format: 'docx' | 'odt', head: string, tail: string): string {
  if (format === 'docx') {
    const start = xml.replace(/<w:body>/, (t) => t + head);
    // The body's own section properties stay its last child.
    const end = start.lastIndexOf('<w:sectPr');
    const close = start.lastIndexOf('</w:body>');
    const at = end >= 0 && !start.slice(end, close).includes('</w:p>') ? end : close;
    return start.slice(0, at) + tail + start.slice(at);
  }
  return xml.replace(/<office:text\b[^>]*>/, (t) => t + head).replace(/<\/office:text>/, (t) => tail + t);
}

/**
 * A copy of a DOCX or ODT with its text boxes, shapes, headers, footers and comments as body
 * paragraphs, or undefined when it has none of them (or cannot be read: the engine then says so).
 */
export async function withTextContainersInBody(
  input: string,
  format: 'docx' | 'odt',
  workDir: string,
): Promise<{ file: string; moved: number } | undefined> {
  const entries = await readEntries(input).catch(() => undefined);
  if (!entries) return undefined;
  const dialect = format === 'docx' ? docxComments(entries) : ODT;
  const body = entries.find((e) => e.name === dialect.body);
  if (!body) return undefined;
  const { xml, lifted } = liftBlocks(body.data.toString('utf8'), dialect);
  const { head, tail } = format === 'docx' ? docxFurniture(entries) : odtFurniture(entries);
  const furniture = (head ? 1 : 0) + (tail ? 1 : 0);
  if (!lifted && !furniture) return undefined;
  body.data = Buffer.from(withFurniture(xml, format, head, tail));
  const file = join(workDir, `source.containers.${format}`);
  await writeEntries(entries, file);
  return { file, moved: lifted + furniture };
}
