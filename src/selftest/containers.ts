import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import yazl from 'yazl';

const ODP_MIME = 'application/vnd.oasis.opendocument.presentation';

const ODP_CONTENT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
 xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" office:version="1.2">
 <office:body><office:presentation>
  <draw:page draw:name="page1">
   <draw:frame svg:x="2cm" svg:y="2cm" svg:width="20cm" svg:height="3cm">
    <draw:text-box><text:p>Self-test slide</text:p></draw:text-box>
   </draw:frame>
   <draw:frame svg:x="2cm" svg:y="6cm" svg:width="20cm" svg:height="3cm">
    <draw:text-box><text:p>The quick brown fox jumps over the lazy dog.</text:p></draw:text-box>
   </draw:frame>
  </draw:page>
 </office:presentation></office:body>
</office:document-content>
`;

/**
 * The smallest OpenDocument package LibreOffice opens: the mimetype entry first and stored
 * uncompressed, a manifest, and the content.
 */
export async function writeOdfPackage(path: string, mime: string, contentXml: string): Promise<void> {
  const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
 <manifest:file-entry manifest:full-path="/" manifest:media-type="${mime}"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
</manifest:manifest>
`;
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(mime), 'mimetype', { compress: false });
  zip.addBuffer(Buffer.from(manifest), 'META-INF/manifest.xml');
  zip.addBuffer(Buffer.from(contentXml), 'content.xml');
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
}

/** A one-slide OpenDocument presentation. */
export function writeOdp(path: string): Promise<void> {
  return writeOdfPackage(path, ODP_MIME, ODP_CONTENT);
}

/**
 * A flat RGB Photoshop file of an image: header, three empty sections, then the raw channel
 * planes (compression 0), as the PSD format lays them out.
 */
export async function psdFrom(image: string): Promise<Buffer> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const header = Buffer.alloc(26);
  header.write('8BPS', 0, 'latin1');
  header.writeUInt16BE(1, 4); // version
  header.writeUInt16BE(3, 12); // channels
  header.writeUInt32BE(height, 14);
  header.writeUInt32BE(width, 18);
  header.writeUInt16BE(8, 22); // bits per channel
  header.writeUInt16BE(3, 24); // RGB
  const sections = Buffer.alloc(4 * 3 + 2); // colour mode, resources, layers: empty; compression 0
  const planes = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    for (let c = 0; c < 3; c++) planes[c * width * height + i] = data[i * 3 + c]!;
  }
  return Buffer.concat([header, sections, planes]);
}
