import {
  docx,
  externalImageRel,
  field,
  linkedPicture,
  odt,
  para,
  truncatedFixture,
  xlsx,
  zip,
} from './build.js';
import type { Canary, HostileCase } from './harness.js';

/** An ODT whose Basic macro is bound to the document's load event and shells out. */
function macroOdt(c: Canary): Promise<Buffer> {
  const macro = `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE script:module PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "module.dtd"><script:module xmlns:script="http://openoffice.org/2000/script" script:name="Module1" script:language="StarBasic">Sub Main
  Shell("/bin/sh", 0, "-c 'touch ${c.dir}/pwned-macro'")
  Open "${c.dir}/pwned-basic" For Output As #1
  Print #1, "pwned"
  Close #1
End Sub</script:module>`;
  const content = `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:script="urn:oasis:names:tc:opendocument:xmlns:script:1.0" office:version="1.2"><office:scripts><office:event-listeners><script:event-listener script:language="ooo:script" script:event-name="dom:load" xlink:href="vnd.sun.star.script:Standard.Module1.Main?language=Basic&amp;location=document"/></office:event-listeners></office:scripts><office:body><office:text><text:p>macro document</text:p></office:text></office:body></office:document-content>`;
  return zip(
    {
      mimetype: 'application/vnd.oasis.opendocument.text',
      'META-INF/manifest.xml': `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="Basic/Standard/Module1.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="Basic/Standard/script-lb.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="Basic/script-lc.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
      'content.xml': content,
      'Basic/script-lc.xml': `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE library:libraries PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "libraries.dtd"><library:libraries xmlns:library="http://openoffice.org/2000/library" xmlns:xlink="http://www.w3.org/1999/xlink"><library:library library:name="Standard" xlink:href="Standard/script.xlb/" xlink:type="simple" library:link="false"/></library:libraries>`,
      'Basic/Standard/script-lb.xml': `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE library:library PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "library.dtd"><library:library xmlns:library="http://openoffice.org/2000/library" library:name="Standard" library:readonly="false" library:passwordprotected="false"><library:element library:name="Module1"/></library:library>`,
      'Basic/Standard/Module1.xml': macro,
    },
    ['mimetype'],
  );
}

/** LibreOffice and pandoc against linked content, formulas that fetch, macros, bombs and broken files. */
export const officeCases: HostileCase[] = [
  {
    name: 'libreoffice: docx with an external image link to the canary URL',
    attack: 'a picture relationship with TargetMode="External" pointing at the canary listener',
    from: 'docx',
    to: 'pdf',
    engine: 'libreoffice',
    make: (c) =>
      docx(para('linked picture') + linkedPicture('rIdX'), externalImageRel('rIdX', `${c.url}pic.png`)),
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'libreoffice: docx with an external image link to a local file',
    attack: 'a picture relationship pointing at the secret PNG by file:// URL',
    from: 'docx',
    to: 'pdf',
    engine: 'libreoffice',
    make: (c) =>
      docx(para('linked picture') + linkedPicture('rIdX'), externalImageRel('rIdX', `file://${c.files.png}`)),
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'libreoffice: docx INCLUDETEXT and INCLUDEPICTURE fields',
    attack: 'fields that pull the secret text file and a canary picture into the document when updated',
    from: 'docx',
    to: 'txt',
    engine: 'libreoffice',
    make: (c) =>
      docx(
        field(`INCLUDETEXT "${c.files.txt}"`, 'cached') + field(`INCLUDEPICTURE "${c.url}f.png" \\d`, 'pic'),
      ),
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'libreoffice: odt with a linked section and a linked image',
    attack: 'a text:section-source on the secret file and a draw:image on the canary URL',
    from: 'odt',
    to: 'txt',
    engine: 'libreoffice',
    make: (c) =>
      odt(
        `<text:p>before</text:p><text:section text:name="S1"><text:section-source xlink:href="file://${c.files.txt}" xlink:type="simple" text:filter-name="Text"/><text:p>cached</text:p></text:section><text:p><draw:frame svg:width="2cm" svg:height="2cm"><draw:image xlink:href="${c.url}img.png" xlink:type="simple"/></draw:frame></text:p>`,
      ),
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'libreoffice: odt with a macro bound to the load event',
    attack: 'a Basic macro run on open that shells out and writes a file next to the secrets',
    from: 'odt',
    to: 'pdf',
    engine: 'libreoffice',
    make: macroOdt,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'libreoffice: xlsx with WEBSERVICE and external file formulas',
    attack: 'formulas that fetch the canary URL and read the secret file when recalculated',
    from: 'xlsx',
    // Recalculated values land in the written workbook's cells, where the leak check looks.
    to: 'ods',
    engine: 'libreoffice',
    make: (c) =>
      xlsx({
        A1: `=WEBSERVICE("${c.url}ws")`,
        B1: `=INDIRECT("'file://${c.files.txt}'#$Sheet1.A1")`,
        C1: `=HYPERLINK("${c.url}h","x")`,
      }),
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'libreoffice: csv with fetching formulas',
    attack: 'CSV cells that are formulas (=WEBSERVICE) evaluated on import',
    from: 'csv',
    to: 'pdf',
    engine: 'libreoffice',
    make: (c) => `a,b\n=WEBSERVICE("${c.url}csv"),"=INDIRECT(""'file://${c.files.txt}'#$Sheet1.A1"")"\n`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'libreoffice: html with remote and local images and an iframe',
    attack: 'img src on the canary URL and on the secret file, iframe and link to the secret text',
    from: 'html',
    to: 'pdf',
    engine: 'libreoffice',
    make: (c) =>
      `<html><head><link rel="stylesheet" href="${c.url}s.css"></head><body><p>hi</p><img src="${c.url}i.png"><img src="file://${c.files.png}"><iframe src="file://${c.files.txt}"></iframe><object data="${c.files.txt}"></object></body></html>`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'libreoffice: rtf with INCLUDETEXT and INCLUDEPICTURE fields',
    attack: 'RTF fields naming the secret file and the canary URL',
    from: 'rtf',
    to: 'txt',
    engine: 'libreoffice',
    make: (c) =>
      `{\\rtf1\\ansi{\\field{\\*\\fldinst INCLUDETEXT "${c.files.txt}"}{\\fldrslt cached}}\\par{\\field{\\*\\fldinst INCLUDEPICTURE "${c.url}r.png" \\\\d}{\\fldrslt pic}}\\par}`,
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'libreoffice: encrypted odt',
    attack: 'an ODF package whose manifest marks content.xml as encrypted',
    from: 'odt',
    to: 'pdf',
    engine: 'libreoffice',
    make: () =>
      odt(
        '<text:p>x</text:p>',
        {},
        '<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"><manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="AAAA"><manifest:algorithm manifest:algorithm-name="Blowfish CFB" manifest:initialisation-vector="AAAA"/><manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:iteration-count="1024" manifest:salt="AAAA"/></manifest:encryption-data></manifest:file-entry>',
      ),
    allowed: { codes: ['ENCRYPTED_DOCUMENT'] },
  },
  {
    name: 'libreoffice: truncated docx',
    attack: 'a docx cut after 1500 bytes (zip central directory missing)',
    from: 'docx',
    to: 'pdf',
    engine: 'libreoffice',
    make: () => truncatedFixture('document.docx', 1500),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'libreoffice: docx with 20000 entries',
    attack: 'a many-entry archive (central directory flood)',
    from: 'docx',
    to: 'txt',
    engine: 'libreoffice',
    timeoutMs: 60_000,
    make: async () => {
      const extra: Record<string, string> = {};
      for (let i = 0; i < 20_000; i++) extra[`word/media/f${i}.xml`] = '<x/>';
      return docx(para('many entries'), '', extra);
    },
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pandoc: docx zip bomb (200 MB document part)',
    attack: 'a docx whose document.xml inflates from a few hundred KB to 200 MB',
    from: 'docx',
    to: 'md',
    engine: 'pandoc',
    timeoutMs: 30_000,
    make: () => zipBomb200MB().then((filler) => docx(`${para('bomb')}<!--${filler}-->`)),
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'pandoc: docx with an external image link',
    attack: 'a linked picture relationship to the canary URL and the secret file, read by pandoc',
    from: 'docx',
    to: 'html',
    engine: 'pandoc',
    make: (c) =>
      docx(
        para('x') + linkedPicture('rIdA') + linkedPicture('rIdB'),
        externalImageRel('rIdA', `${c.url}p.png`) + externalImageRel('rIdB', `file://${c.files.png}`),
      ),
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
];

async function zipBomb200MB(): Promise<string> {
  return ' '.repeat(200 * 1024 * 1024);
}
