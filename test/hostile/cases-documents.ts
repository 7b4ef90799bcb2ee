import { engineMade, numberedPdf as pdf, truncatedFixture } from './build.js';
import type { HostileCase } from './harness.js';

/** A PDF whose page tree claims `count` pages, all the same tiny page object. */
function manyPagesPdf(count: number): Buffer {
  const kids = Array.from({ length: count }, () => '3 0 R').join(' ');
  return pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${count} >>`,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>',
  ]);
}

/** A one-page PDF, made by Ghostscript, that opens only with the user password `user`. */
function userPasswordPdf(): Buffer {
  return engineMade(
    'gs',
    (out) => [
      '-q',
      '-dSAFER',
      '-dBATCH',
      '-dNOPAUSE',
      '-sDEVICE=pdfwrite',
      '-sOwnerPassword=owner',
      '-sUserPassword=user',
      `-sOutputFile=${out}`,
      '-c',
      'showpage',
    ],
    'pdf',
  );
}

/** A page tree whose /Pages node lists itself among its kids. */
function loopingPagesPdf(): Buffer {
  return pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>',
  ]);
}

/** Ghostscript, pandoc and the PDF engines against file reads, loops, includes and absurd PDFs. */
export const documentCases: HostileCase[] = [
  {
    name: 'ghostscript: PostScript reading a local file',
    attack: 'PS that opens the secret file with the file operator and shows it (blocked by -dSAFER)',
    from: 'ps',
    to: 'pdf',
    make: (c) =>
      `%!PS\n/Helvetica findfont 12 scalefont setfont 72 720 moveto\n(${c.files.txt}) (r) file 200 string readstring pop show\nshowpage\n`,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'ghostscript: PostScript writing files and opening a pipe',
    attack: 'PS that writes next to the secrets and runs %pipe% (blocked by -dSAFER)',
    from: 'ps',
    to: 'pdf',
    make: (c) =>
      `%!PS\n(${c.dir}/pwned-ps) (w) file (x) writestring\n(%pipe%touch ${c.dir}/pwned-pipe) (w) file pop\nshowpage\n`,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'ghostscript: EPS with a file read, to PNG',
    attack: 'an EPS whose program runs the secret file as PostScript',
    from: 'eps',
    to: 'png',
    make: (c) =>
      `%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 100 100\n(${c.files.txt}) run\n0 0 moveto 100 100 lineto stroke\n`,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'ghostscript: PostScript infinite loop',
    attack: 'PS that never ends ({} loop): the step time limit must stop it and kill the group',
    from: 'ps',
    to: 'pdf',
    timeoutMs: 4_000,
    make: () => '%!PS\n{ 1 pop } loop\n',
    allowed: { codes: ['CONVERT_FAILED'] },
  },
  {
    name: 'ghostscript: PostScript uploaded as PDF',
    attack: 'a PS program named .pdf, so a PDF step would run it as a program',
    from: 'pdf',
    to: 'pdfa',
    engine: 'ghostscript',
    make: (c) => `%!PS\n(${c.files.txt}) (r) file 100 string readstring pop print\n`,
    allowed: { codes: ['FORMAT_MISMATCH', 'MALFORMED_DOCUMENT'] },
  },
  {
    name: 'pdf: absurd page count to png',
    attack: 'a PDF claiming 100000 pages, rasterised one PNG per page',
    from: 'pdf',
    to: 'png',
    make: () => manyPagesPdf(100_000),
    allowed: { codes: ['OUTPUT_TOO_LARGE', 'CONVERT_FAILED', 'MALFORMED_DOCUMENT'] },
  },
  {
    name: 'pdf: absurd page size to png',
    attack: 'a 200 x 200 inch page, which at 150 dpi is 900 megapixels',
    from: 'pdf',
    to: 'png',
    make: () =>
      pdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 14400 14400] >>',
      ]),
    allowed: { codes: ['OUTPUT_TOO_LARGE', 'CONVERT_FAILED'] },
  },
  {
    name: 'pdf: absurd page size through ghostscript',
    attack: 'the same 900-megapixel page given to ghostscript directly',
    from: 'pdf',
    to: 'jpg',
    engine: 'ghostscript',
    make: () =>
      pdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 14400 14400] >>',
      ]),
    allowed: { codes: ['OUTPUT_TOO_LARGE', 'CONVERT_FAILED'] },
  },
  {
    name: 'pdf: URI, Launch and JavaScript actions to text',
    attack: 'open actions that would launch the secret file and fetch the canary URL',
    from: 'pdf',
    to: 'txt',
    make: (c) =>
      pdf([
        `<< /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R /AA << /WC 5 0 R >> >>`,
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>',
        `<< /S /Launch /F (${c.files.txt}) /Next << /S /URI /URI (${c.url}pdf) >> >>`,
        `<< /S /JavaScript /JS (app.launchURL\\("${c.url}js"\\)) >>`,
      ]),
    allowed: { output: true, codes: ['NEEDS_OCR', 'MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pdf: truncated',
    attack: 'a PDF cut after 400 bytes (no xref, no trailer)',
    from: 'pdf',
    to: 'png',
    make: () => truncatedFixture('document.pdf', 400),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pdf: encrypted with a user password',
    attack: 'a password-protected PDF (made by ghostscript) to text',
    from: 'pdf',
    to: 'txt',
    make: userPasswordPdf,
    allowed: { codes: ['ENCRYPTED_DOCUMENT'] },
  },
  {
    name: 'pandoc: markdown including local files as images',
    attack: 'image references to the secret PNG by path and file:// URL, embedded into an ODT',
    from: 'md',
    to: 'odt',
    engine: 'pandoc',
    make: (c) => `# x\n\n![a](${c.files.png})\n\n![b](file://${c.files.txt})\n\n![c](${c.files.svg})\n`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pandoc: markdown with a remote image',
    attack: 'an image on the canary URL, which an ODT writer would fetch to embed',
    from: 'md',
    to: 'odt',
    engine: 'pandoc',
    make: (c) => `# x\n\n![r](${c.url}r.png)\n`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pandoc: html with remote img and local img',
    attack: 'img src on the canary URL and on the secret PNG, converted to ODT (images embedded)',
    from: 'html',
    to: 'odt',
    engine: 'pandoc',
    make: (c) =>
      `<html><body><p>x</p><img src="${c.url}h.png"><img src="file://${c.files.png}"></body></html>`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pandoc: rst include directive',
    attack: '.. include:: and .. raw:: html :file: on the secret file',
    from: 'rst',
    to: 'html',
    engine: 'pandoc',
    make: (c) => `Title\n=====\n\n.. include:: ${c.files.txt}\n\n.. raw:: html\n   :file: ${c.files.txt}\n`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pandoc: rst csv-table and raw directives reading files',
    attack: '.. csv-table:: :file: and .. raw:: latex :file: on the secret file and /etc/passwd',
    from: 'rst',
    to: 'html',
    engine: 'pandoc',
    make: (c) =>
      `Title\n=====\n\n.. csv-table:: leak\n   :file: ${c.files.txt}\n\n.. csv-table:: passwd\n   :file: /etc/passwd\n\n.. raw:: latex\n   :file: ${c.files.txt}\n`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pandoc: Org #+INCLUDE of local files',
    attack:
      '#+INCLUDE: of the secret file and of /etc/passwd, and a local file link as an image, printed to PDF',
    from: 'org',
    to: 'pdf',
    engine: 'pandoc-chromium',
    make: (c) =>
      `* Title\n#+INCLUDE: "${c.files.txt}"\n#+INCLUDE: "/etc/passwd" src text\n[[file:${c.files.png}]]\n`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pandoc: DocBook with an external entity and XIncludes',
    attack: 'a SYSTEM entity on the secret file, XIncludes of it as text and as XML, printed to PDF',
    from: 'docbook',
    to: 'pdf',
    engine: 'pandoc-chromium',
    make: (c) =>
      `<?xml version="1.0"?>\n<!DOCTYPE article [<!ENTITY leak SYSTEM "file://${c.files.txt}">]>\n` +
      '<article xmlns="http://docbook.org/ns/docbook" xmlns:xi="http://www.w3.org/2001/XInclude" version="5.0">' +
      `<title>x</title><para>&leak;</para><xi:include href="${c.files.txt}" parse="text"/>` +
      `<xi:include href="${c.files.xml}"/><mediaobject><imageobject><imagedata fileref="${c.files.png}"/></imageobject></mediaobject></article>\n`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pandoc: DocBook XIncludes without an entity',
    attack: 'XIncludes of the secret file as text and as XML, and a remote one, to HTML',
    from: 'docbook',
    to: 'html',
    engine: 'pandoc',
    make: (c) =>
      '<?xml version="1.0"?>\n<article xmlns="http://docbook.org/ns/docbook" xmlns:xi="http://www.w3.org/2001/XInclude" version="5.0">' +
      `<title>x</title><xi:include href="${c.files.txt}" parse="text"/><xi:include href="${c.files.xml}"/>` +
      `<xi:include href="${c.url}x.xml"/></article>\n`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pandoc: a man page sourcing local files',
    attack: '.so and .mso requests naming the secret file and /etc/passwd, printed to PDF',
    from: 'roff',
    to: 'pdf',
    engine: 'pandoc-chromium',
    make: (c) => `.TH X 1\n.SH NAME\nx\n.so ${c.files.txt}\n.mso ${c.files.txt}\n.so /etc/passwd\n`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pandoc: a notebook pointing at local and remote pictures',
    attack: 'a Markdown cell with the secret PNG by path and file:// URL and a canary image, printed to PDF',
    from: 'ipynb',
    to: 'pdf',
    engine: 'pandoc-chromium',
    make: (c) =>
      JSON.stringify({
        cells: [
          {
            cell_type: 'markdown',
            metadata: {},
            source: [`![a](${c.files.png})\n`, `![b](file://${c.files.svg})\n`, `![c](${c.url}n.png)\n`],
          },
        ],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5,
      }),
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pandoc: MediaWiki with pictures and includes',
    attack: 'File: pictures and a transclusion naming the secret files, and an external picture, to ODT',
    from: 'mediawiki',
    to: 'odt',
    engine: 'pandoc',
    make: (c) =>
      `== x ==\n[[File:${c.files.png}]]\n{{:${c.files.txt}}}\n[${c.url}w.png]\n<img src="file://${c.files.png}">\n`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pandoc: Markdown pictures and math on the way to Word',
    attack:
      'pictures by path, file:// URL and a canary URL, raw ODT XML, and a formula, to ODT (the first step of Markdown to DOCX)',
    from: 'md',
    to: 'odt',
    engine: 'pandoc',
    make: (c) =>
      `# x\n\n![a](${c.files.png}) ![b](file://${c.files.svg}) ![c](${c.url}m.png)\n\n` +
      `\`\`\`{=opendocument}\n<text:p><draw:frame><draw:image xlink:href="${c.files.png}"/></draw:frame></text:p>\n\`\`\`\n\n` +
      '$$\\int_0^1 \\sin x\\,dx$$\n',
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'qpdf: a page tree that loops',
    attack: 'a /Pages node whose /Kids names itself, split into single pages',
    from: 'pdf',
    to: 'pdf',
    engine: 'qpdf',
    options: { split: 1 },
    make: () => loopingPagesPdf(),
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT'] },
  },
  {
    name: 'qpdf: a wrong password',
    attack: 'an encrypted PDF opened with a wrong password: refused, nothing written',
    from: 'pdf',
    to: 'pdf',
    engine: 'qpdf',
    options: { password: 'not-the-password' },
    make: userPasswordPdf,
    allowed: { codes: ['ENCRYPTED_DOCUMENT'] },
  },
  {
    name: 'ocrmypdf: PostScript reading a local file, uploaded as PDF',
    attack: 'a PostScript program that opens the secret file, given to OCR as a PDF',
    from: 'pdf',
    to: 'pdf',
    engine: 'ocrmypdf',
    options: { ocr: true },
    make: (c) => `%!PS\n(${c.files.txt}) (r) file 100 string readstring pop print showpage\n`,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'FORMAT_MISMATCH'] },
  },
  {
    name: 'pandoc: LaTeX \\input of a local file',
    attack: '\\input and \\include of the secret file in the LaTeX reader',
    from: 'tex',
    to: 'txt',
    engine: 'pandoc',
    make: (c) =>
      `\\documentclass{article}\\begin{document}\\input{${c.files.txt}}\\include{${c.files.txt.replace(/\.txt$/, '')}}\\end{document}\n`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
];
