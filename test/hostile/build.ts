import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import yazl from 'yazl';
import { pngChunk } from '../converters/_image-samples.js';

/** Builders for hostile inputs: zips, OOXML/ODF packages, image headers, engine-made samples. */

export const DETECT_FIXTURES = fileURLToPath(new URL('../fixtures/detect', import.meta.url));

/** A project fixture cut to its first `keep` bytes (a truncated file of that family). */
export function truncatedFixture(name: string, keep: number): Buffer {
  return readFileSync(join(DETECT_FIXTURES, name)).subarray(0, keep);
}

/**
 * A zip of the given entries, compressed (or stored for `stored` names); `modes` gives some entries
 * a Unix mode (0o120777 makes a symbolic link whose target is the entry's data).
 */
export function zip(
  entries: Record<string, string | Buffer>,
  stored: string[] = [],
  modes: Record<string, number> = {},
): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries)) {
    const mode = modes[name];
    z.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), name, {
      compress: !stored.includes(name),
      ...(mode ? { mode } : {}),
    });
  }
  z.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    z.outputStream.on('error', reject);
  });
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
</Types>`;
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>`;
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A minimal docx with `body` as the body XML and extra relationships of word/document.xml. */
export function docx(body: string, rels = '', extra: Record<string, string | Buffer> = {}): Promise<Buffer> {
  return zip({
    '[Content_Types].xml': CONTENT_TYPES,
    '_rels/.rels': ROOT_RELS,
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="${W}" xmlns:r="${R}" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body>${body}</w:body></w:document>`,
    'word/_rels/document.xml.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`,
    ...extra,
  });
}

/** A paragraph of text. */
export function para(text: string): string {
  return `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;
}

/** A picture whose image is linked (not embedded) through relationship `rId`. */
export function linkedPicture(rId: string): string {
  return `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="914400" cy="914400"/><wp:docPr id="1" name="p"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="p"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:link="${rId}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="914400" cy="914400"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;
}

/** An external image relationship. */
export function externalImageRel(rId: string, target: string): string {
  return `<Relationship Id="${rId}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="${target}" TargetMode="External"/>`;
}

/** A complex field (INCLUDETEXT, INCLUDEPICTURE) with a cached result. */
export function field(instruction: string, cached: string): string {
  return `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> ${instruction} </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>${cached}</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`;
}

/** A minimal xlsx whose Sheet1 holds the given cells (formula cells as `=...`). */
export function xlsx(
  cells: Record<string, string>,
  extra: Record<string, string | Buffer> = {},
): Promise<Buffer> {
  const row = Object.entries(cells)
    .map(([ref, v]) =>
      v.startsWith('=')
        ? `<c r="${ref}"><f>${escapeXml(v.slice(1))}</f><v>0</v></c>`
        : `<c r="${ref}" t="inlineStr"><is><t>${escapeXml(v)}</t></is></c>`,
    )
    .join('');
  return zip({
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${R}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    'xl/worksheets/sheet1.xml': `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1">${row}</row></sheetData></worksheet>`,
    ...extra,
  });
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A minimal ODF text document; `content` is the office:text body, `manifestExtra` adds manifest entries. */
export function odt(
  content: string,
  extra: Record<string, string | Buffer> = {},
  manifestExtra = '',
): Promise<Buffer> {
  return zip(
    {
      mimetype: 'application/vnd.oasis.opendocument.text',
      'META-INF/manifest.xml': `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>${manifestExtra}</manifest:manifest>`,
      'content.xml': `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:script="urn:oasis:names:tc:opendocument:xmlns:script:1.0" xmlns:ooo="http://openoffice.org/2004/office" office:version="1.2"><office:body><office:text>${content}</office:text></office:body></office:document-content>`,
      ...extra,
    },
    ['mimetype'],
  );
}

/**
 * A PNG declaring width x height. With `realRows` the pixel data is really there (1-bit grey,
 * zero rows: a decompression bomb of a few hundred KB); otherwise one tiny IDAT (a header flood).
 */
export function pngBomb(width: number, height: number, realRows = false): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = realRows ? 1 : 8; // bit depth
  ihdr[9] = 0; // greyscale
  const raw = realRows ? Buffer.alloc(height * (1 + Math.ceil(width / 8))) : Buffer.alloc(64);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A BMP header declaring width x height at 24 bits with almost no pixel data. */
export function bmpBomb(width: number, height: number): Buffer {
  const b = Buffer.alloc(54 + 16);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(b.length, 2);
  b.writeUInt32LE(54, 10);
  b.writeUInt32LE(40, 14);
  b.writeInt32LE(width, 18);
  b.writeInt32LE(height, 22);
  b.writeUInt16LE(1, 26);
  b.writeUInt16LE(24, 28);
  return b;
}

/** A GIF whose logical screen and only frame are width x height, with a tiny LZW stream. */
export function gifBomb(width: number, height: number): Buffer {
  const head = Buffer.alloc(13);
  head.write('GIF89a', 0, 'latin1');
  head.writeUInt16LE(width, 6);
  head.writeUInt16LE(height, 8);
  head[10] = 0x80; // global colour table of 2 entries
  const palette = Buffer.from([0, 0, 0, 255, 255, 255]);
  const desc = Buffer.alloc(10);
  desc[0] = 0x2c;
  desc.writeUInt16LE(width, 5);
  desc.writeUInt16LE(height, 7);
  const data = Buffer.from([0x02, 0x02, 0x44, 0x01, 0x00, 0x3b]);
  return Buffer.concat([head, palette, desc, data]);
}

/** A baseline JPEG header (SOF0) declaring width x height, cut after the frame header. */
export function jpegBomb(width: number, height: number): Buffer {
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x0b, 0x08, 0, 0, 0, 0, 0x01, 0x01, 0x11, 0x00]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), sof, Buffer.from([0xff, 0xd9])]);
}

/** A lossless WebP (VP8L) header declaring width x height (max 16384) with no real image data. */
export function webpBomb(width: number, height: number): Buffer {
  const vp8l = Buffer.alloc(5 + 8);
  vp8l[0] = 0x2f;
  const bits = (width - 1) | ((height - 1) << 14);
  vp8l.writeUInt32LE(bits >>> 0, 1);
  const chunk = Buffer.concat([Buffer.from('VP8L', 'latin1'), u32le(vp8l.length), vp8l]);
  return Buffer.concat([
    Buffer.from('RIFF', 'latin1'),
    u32le(4 + chunk.length),
    Buffer.from('WEBP', 'latin1'),
    chunk,
  ]);
}

function u32le(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

/** Runs an engine to make a sample file in a scratch folder, returns its bytes. */
export function engineMade(file: string, args: (out: string) => string[], ext: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'fileconv-hostile-make-'));
  try {
    const out = join(dir, `sample.${ext}`);
    execFileSync(file, args(out), { stdio: 'ignore', timeout: 60_000 });
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A PDF from numbered object bodies, with a correct xref table. */
export function numberedPdf(objects: string[]): Buffer {
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
