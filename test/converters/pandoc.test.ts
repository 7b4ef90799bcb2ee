import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, createWriteStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import pandoc from '../../converters/pandoc.js';
import {
  convertWith,
  encryptedOdt,
  expectCode,
  fileScopedDir,
  startsWith,
  zipEntries,
} from '../helpers/office.js';

const SAMPLE = 'fileconv sample';
const fixtures = fileScopedDir('fileconv-pandoc-');
const dir = fixtures.dir;
afterAll(() => fixtures.cleanup());

async function step(from: string, to: string, input: string): Promise<string> {
  const { files, leftover } = await convertWith(pandoc, from, to, input);
  expect(leftover).toEqual([]);
  expect(files).toHaveLength(1);
  const kept = join(dir, `from-${from}.${to}`);
  copyFileSync(files[0] as string, kept);
  return kept;
}

const text = (path: string) => readFileSync(path, 'utf8');

let md: string;
let docx: string;
let epub: string;

beforeAll(() => {
  md = join(dir, 'sample.md');
  writeFileSync(md, `# Heading\n\nA paragraph: ${SAMPLE} with **bold** text and ünïcödé.\n\n- one\n- two\n`);
  // docx and epub inputs are written by pandoc itself from the sample (our own trusted input), since
  // the converter does not declare those writers.
  docx = join(dir, 'sample.docx');
  epub = join(dir, 'sample.epub');
  execFileSync('pandoc', ['-o', docx, md]);
  execFileSync('pandoc', ['--metadata', 'title=Sample', '-o', epub, md]);
});

describe('pandoc converter', () => {
  it('probes pandoc with its version', async () => {
    const probe = await pandoc.probe();
    expect(probe.ok).toBe(true);
    expect(probe.version).toMatch(/^\d+\.\d+/);
  });

  it('declares families and the lossy rule', () => {
    const edge = (from: string, to: string) => pandoc.edges.find((e) => e.from === from && e.to === to);
    expect(edge('md', 'html')).toMatchObject({ family: 'text', lossy: false, cost: 5 });
    expect(edge('md', 'txt')).toMatchObject({ family: 'text', lossy: true });
    expect(edge('docx', 'md')).toMatchObject({ family: 'document', lossy: true });
    expect(edge('epub', 'html')).toMatchObject({ family: 'ebook', lossy: true });
    expect(edge('mediawiki', 'html')).toMatchObject({ family: 'text', lossy: false });
    expect(edge('ipynb', 'odt')).toMatchObject({ family: 'document', lossy: false });
    expect(edge('md', 'pdf')).toBeUndefined();
    expect(edge('md', 'docx')).toBeUndefined();
  });

  it('converts along a chain through every reader and writer', async () => {
    const html = await step('md', 'html', md);
    expect(text(html)).toMatch(/<!DOCTYPE html>[\s\S]*<strong>bold<\/strong>/);

    const rst = await step('html', 'rst', html);
    expect(text(rst)).toMatch(/Heading\n=+/);

    const tex = await step('rst', 'tex', rst);
    expect(text(tex)).toMatch(/\\documentclass[\s\S]*\\textbf\{bold\}/);

    const odt = await step('tex', 'odt', tex);
    const entries = await zipEntries(odt);
    expect(entries.get('mimetype')?.toString('utf8')).toBe('application/vnd.oasis.opendocument.text');
    expect(entries.get('content.xml')?.toString('utf8')).toContain(SAMPLE);

    const backToMd = await step('odt', 'md', odt);
    expect(text(backToMd)).toContain(`${SAMPLE} with **bold** text and ünïcödé.`);

    const plain = await step('docx', 'txt', docx);
    expect(text(plain)).toContain(`${SAMPLE} with bold text and ünïcödé.`);

    const rtf = await step('epub', 'rtf', epub);
    expect(startsWith(rtf, '{\\rtf1')).toBe(true);
    expect(text(rtf)).toContain(SAMPLE);
  });

  it('never lets a document pull in a local file (sandbox)', async () => {
    // Without --sandbox pandoc would embed the picture and inline the included LaTeX file.
    const secret = join(dir, 'secret.tex');
    writeFileSync(secret, 'do-not-leak-this');
    const image = join(dir, 'pixel.png');
    copyFileSync(join(dir, 'sample.md'), image);
    const evil = join(dir, 'evil.md');
    writeFileSync(evil, `# Evil\n\n![x](${image})\n`);
    const odt = await step('md', 'odt', evil);
    const entries = await zipEntries(odt);
    expect([...entries.keys()].filter((name) => name.startsWith('Pictures/'))).toEqual([]);
    const tex = join(dir, 'evil.tex');
    writeFileSync(
      tex,
      `\\documentclass{article}\\begin{document}\\input{${secret.replace(/\.tex$/, '')}}\\end{document}\n`,
    );
    expect(text(await step('tex', 'md', tex))).not.toContain('do-not-leak-this');
  });

  it('keeps the paragraphs an ODT holds in sections (pandoc reads them only once unwrapped)', async () => {
    // An ODT written by pandoc (trusted input), its paragraphs then put in nested sections the
    // way LibreOffice writes them.
    const plain = join(dir, 'plain.odt');
    const source = join(dir, 'plain.md');
    writeFileSync(source, 'Preamble in a section\n\nNested licence words\n\nBody paragraph\n');
    execFileSync('pandoc', [source, '-o', plain]);
    const entries = await zipEntries(plain);
    const content = entries
      .get('content.xml')!
      .toString('utf8')
      .replace(/(<text:p[^>]*>Preamble)/, '<text:section text:name="preamble">$1')
      .replace(/(<text:p[^>]*>Nested)/, '<text:section text:name="inner">$1')
      .replace(/(licence words<\/text:p>)/, '$1</text:section></text:section>');
    expect(content.match(/<text:section /g)).toHaveLength(2);
    const odt = join(dir, 'sections.odt');
    const zip = new yazl.ZipFile();
    for (const [name, data] of entries)
      if (!name.endsWith('/'))
        zip.addBuffer(name === 'content.xml' ? Buffer.from(content) : data, name, {
          compress: name !== 'mimetype',
        });
    zip.end();
    await pipeline(zip.outputStream, createWriteStream(odt));
    const out = text(await step('odt', 'md', odt));
    for (const words of ['Preamble in a section', 'Nested licence words', 'Body paragraph'])
      expect(out).toContain(words);
  });

  it('reports a password-protected odt as ENCRYPTED_DOCUMENT', async () => {
    const locked = join(dir, 'locked.odt');
    await encryptedOdt(locked, 'secret');
    await expectCode(convertWith(pandoc, 'odt', 'md', locked), 'ENCRYPTED_DOCUMENT');
  });

  it('reports unreadable containers and markup as MALFORMED_DOCUMENT', async () => {
    const garbage = join(dir, 'garbage.docx');
    writeFileSync(garbage, randomBytes(3000));
    await expectCode(convertWith(pandoc, 'docx', 'md', garbage), 'MALFORMED_DOCUMENT');
    const brokenEpub = join(dir, 'broken.epub');
    writeFileSync(brokenEpub, Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), randomBytes(500)]));
    await expectCode(convertWith(pandoc, 'epub', 'html', brokenEpub), 'MALFORMED_DOCUMENT');
    const badTex = join(dir, 'bad.tex');
    writeFileSync(badTex, '\\begin{document} text } } \\end{itemize}\n');
    await expectCode(convertWith(pandoc, 'tex', 'md', badTex), 'MALFORMED_DOCUMENT');
  });

  describe('the markup languages people exchange', () => {
    const documents = join(import.meta.dirname, '../fixtures/detect/documents');
    it.each([
      ['mediawiki', 'report.wiki'],
      ['textile', 'report.textile'],
      ['roff', 'report.1'],
      ['docbook', 'report.dbk'],
      ['ipynb', 'notebook.ipynb'],
    ])('reads %s to HTML with its headings, emphasis and lists', async (from, name) => {
      const html = text(await step(from, 'html', join(documents, name)));
      expect(html).toMatch(/<h[12][^>]*>Quarterly report<\/h[12]>/);
      expect(html).toMatch(/<h[23][^>]*>Regions<\/h[23]>/);
      expect(html).toMatch(/<strong>north<\/strong>/);
      expect(html).toMatch(/<li>(<p>)?south/);
    });

    // A man page as a Debian package installs it, written by its own project.
    const manPage = '/usr/share/man/man1/gzip.1.gz';
    it.skipIf(!existsSync(manPage))('reads a man page installed by Debian to Markdown', async () => {
      const page = join(dir, 'gzip.1');
      writeFileSync(page, gunzipSync(readFileSync(manPage)));
      const md = text(await step('roff', 'md', page));
      expect(md).toMatch(/^#+ NAME/m);
      expect(md).toMatch(/gzip, gunzip, zcat - compress or expand files/);
      expect(md).toContain('--decompress');
    });

    it("keeps a notebook's pictures inside the page", async () => {
      const pixel = execFileSync('convert', ['-size', '30x20', 'xc:red', 'png:-']).toString('base64');
      const notebook = join(dir, 'plot.ipynb');
      const output = {
        output_type: 'display_data',
        data: { 'image/png': pixel, 'text/plain': ['<Figure>'] },
        metadata: {},
      };
      const cells = [
        { cell_type: 'code', execution_count: 1, metadata: {}, source: ['plot()'], outputs: [output] },
      ];
      writeFileSync(notebook, JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 5 }));
      const html = text(await step('ipynb', 'html', notebook));
      expect(html).toContain(`src="data:image/png;base64,${pixel}"`);
    });

    it('never lets DocBook include a local file or an external entity (sandbox)', async () => {
      const secret = join(dir, 'docbook-secret.txt');
      writeFileSync(secret, 'do-not-leak-this');
      const article = (doctype: string, body: string) =>
        `<?xml version="1.0"?>\n${doctype}<article xmlns="http://docbook.org/ns/docbook" ` +
        `xmlns:xi="http://www.w3.org/2001/XInclude" version="5.0"><title>Evil</title>${body}</article>\n`;
      const included = join(dir, 'include.dbk');
      writeFileSync(included, article('', `<para>before</para><xi:include href="${secret}" parse="text"/>`));
      const md = text(await step('docbook', 'md', included));
      expect(md).toContain('before');
      expect(md).not.toContain('do-not-leak-this');
      // pandoc resolves no external entity: the document is refused as unreadable.
      const entity = join(dir, 'entity.dbk');
      writeFileSync(
        entity,
        article(`<!DOCTYPE article [<!ENTITY leak SYSTEM "file://${secret}">]>\n`, '<para>&leak;</para>'),
      );
      await expectCode(convertWith(pandoc, 'docbook', 'md', entity), 'MALFORMED_DOCUMENT');
    });
  });

  describe('text that is not UTF-8', () => {
    const PAGE = (charset: string) =>
      `<!DOCTYPE html>\n<html><head><meta charset="${charset}"><title>Menu</title></head>\n<body><h1>Café crème</h1><p>Naïve façade, déjà vu. L’été « chaud ».</p></body></html>\n`;

    /** The page in another encoding, re-encoded by iconv. */
    function encoded(name: string, content: string, encoding: string): string {
      const utf8 = join(dir, `${name}.utf8`);
      writeFileSync(utf8, content);
      const out = join(dir, name);
      writeFileSync(out, execFileSync('iconv', ['-f', 'UTF-8', '-t', encoding, utf8]));
      return out;
    }

    it('reads a page labelled Latin-1 by its meta charset, as windows-1252 the way browsers do', async () => {
      // most pages labelled iso-8859-1 are windows-1252: curly quotes at 0x80-0x9F
      const page = encoded('latin1.html', PAGE('iso-8859-1'), 'WINDOWS-1252');
      expect(readFileSync(page).includes(0x92)).toBe(true);
      const md = text(await step('html', 'md', page));
      expect(md).toContain('Café crème');
      // the Markdown writer turns the curly apostrophe into a plain one (smart quotes)
      expect(md).toMatch(/Naïve façade, déjà vu\. L['’]été « chaud »\./);
    });

    it('reads a UTF-16 page by its byte order mark', async () => {
      const page = encoded('utf16.html', PAGE('utf-16'), 'UTF-16');
      expect([...readFileSync(page).subarray(0, 2)]).toEqual([0xff, 0xfe]);
      const { files } = await convertWith(pandoc, 'html', 'md', page);
      expect(text(files[0]!)).toContain('Naïve façade, déjà vu.');
    });

    it('reads Markdown that is not valid UTF-8 as windows-1252', async () => {
      const notes = encoded('notes.md', '# Café\n\nNaïve façade.\n', 'WINDOWS-1252');
      const html = text(await step('md', 'html', notes));
      expect(html).toContain('Naïve façade.');
    });
  });
});
