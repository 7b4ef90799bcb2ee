import { CONFIDENCE, type Finding } from '../types.js';

const strong = (id: string): Finding => ({ id, confidence: CONFIDENCE.STRONG_TEXT });
const clear = (id: string): Finding => ({ id, confidence: CONFIDENCE.TEXT });

/** RFC 5322 header fields a message opens with; two of them make a message. */
const MAIL_HEADER =
  /^(From|To|Subject|Date|Message-ID|MIME-Version|Received|Return-Path|Content-Type|X-[\w-]+):[ \t]/gim;

/**
 * Text formats that declare themselves in their first line or lines: PEM armour, playlists,
 * calendars and cards, mailboxes and messages (MHTML is a message whose body is a related
 * multipart), unified and context diffs, BibTeX entries, CUE sheets, man pages and DTDs.
 */
export function sniffMarked(text: string): Finding | undefined {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (/^-----BEGIN [A-Z0-9 ]+-----\r?\n/.test(start)) return strong('pem');
  if (start.startsWith('#EXTM3U')) return strong('m3u');
  if (/^BEGIN:VCALENDAR\r?\n/i.test(start)) return strong('ics');
  if (/^BEGIN:VCARD\r?\n/i.test(start)) return strong('vcf');
  if (/^From \S+ +\w{3} \w{3} +\d/.test(start)) return strong('mbox');
  const head = start.slice(0, start.search(/\r?\n\r?\n/) >>> 0);
  if (/^[\w-]+:[ \t]/.test(start) && (head.match(MAIL_HEADER)?.length ?? 0) >= 2) {
    return /^Content-Type:[ \t]*multipart\/related\b/im.test(head) ? strong('mhtml') : strong('eml');
  }
  if (
    /^(diff --git |Index: \S|--- \S.*\r?\n\+\+\+ \S)/m.test(start.slice(0, 2048)) &&
    /^@@ -\d+(,\d+)? \+\d+/m.test(start)
  )
    return strong('diff');
  if (
    /^@(article|book|inproceedings|incollection|misc|techreport|phdthesis|mastersthesis|online|manual|string|preamble)\s*\{/im.test(
      start,
    )
  )
    return strong('bib');
  if (
    /^(REM |PERFORMER |TITLE |FILE )/.test(start) &&
    /^\s*FILE\s+.+\s+(WAVE|MP3|AIFF|BINARY|MOTOROLA)\s*$/m.test(start) &&
    /^\s+TRACK\s+\d+\s+\w+/m.test(start)
  )
    return strong('cue');
  // A man page opens with requests or comments (`.\"`, `'\"`) and sets its title with .TH (man)
  // or .Dd/.Dt (mdoc) within its first lines.
  if (/^[.']/.test(start) && /^\.(TH|Dd|Dt)\s/m.test(start.slice(0, 8192))) return strong('roff');
  // MediaWiki headings with bold or links; converters put HTML anchors before headings.
  if (
    /^(={1,6}) ?[^=\n]+ ?\1[ \t]*$/m.test(start) &&
    /'''[^'\n]+'''|\[\[[^\]\n]+\]\]|\[https?:\/\/\S+ [^\]\n]+\]/.test(start) &&
    !/^<(!doctype|html)\b/i.test(start)
  )
    return clear('mediawiki');
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<!(ELEMENT|ENTITY|ATTLIST)\s/.test(start))
    return strong('dtd');
  return undefined;
}

/** Root elements (local names) of XML vocabularies the registry names, with a namespace that must go with some. */
const XML_ROOTS: Array<[root: RegExp, id: string, namespace?: RegExp]> = [
  [/^rss$/, 'rss'],
  [/^rdf:RDF$/, 'rss', /purl\.org\/rss\/1\.0/],
  [/^feed$/, 'atom', /www\.w3\.org\/2005\/Atom/],
  [/^opml$/, 'opml'],
  [/^gpx$/, 'gpx'],
  [/^kml$/, 'kml'],
  [/^plist$/, 'plist'],
  [/^(xsl|xslt):(stylesheet|transform)$/, 'xsl'],
  [/^abiword$/, 'abw'],
  [/^(book|article|chapter|set|part|refentry|section)$/, 'docbook', /docbook\.org\/ns\/docbook|DocBook XML/i],
];

/** The flat (single XML file) OpenDocument formats, by their root's `office:mimetype`. */
const FLAT_ODF: Record<string, string> = {
  'application/vnd.oasis.opendocument.text': 'fodt',
  'application/vnd.oasis.opendocument.spreadsheet': 'fods',
  'application/vnd.oasis.opendocument.presentation': 'fodp',
  'application/vnd.oasis.opendocument.graphics': 'odg',
};

/** An XML document's vocabulary from its root element (and DOCTYPE), where the registry has it. */
export function xmlVocabulary(text: string): Finding | undefined {
  const root = /<([A-Za-z_][\w.-]*(?::[\w.-]+)?)[\s>/]/.exec(
    text.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>/gi, ''),
  );
  if (!root) return undefined;
  const name = root[1]!;
  const after = text.slice(root.index, root.index + 4096);
  if (/^office:document$/.test(name)) {
    const mimetype = /office:mimetype\s*=\s*"([^"]+)"/.exec(after)?.[1];
    const id = mimetype ? FLAT_ODF[mimetype] : undefined;
    return id ? strong(id) : undefined;
  }
  for (const [pattern, id, ns] of XML_ROOTS) {
    if (!pattern.test(name)) continue;
    if (ns && !ns.test(after) && !ns.test(text.slice(0, root.index))) continue;
    return strong(id);
  }
  return undefined;
}

/** JSON that is a Jupyter notebook or GeoJSON, by the members their specifications require. */
export function jsonVocabulary(text: string): Finding | undefined {
  const head = text.slice(0, 64 * 1024);
  if (/"nbformat"\s*:\s*\d/.test(head) && /"cells"\s*:\s*\[/.test(head)) return strong('ipynb');
  if (/"type"\s*:\s*"(FeatureCollection|Feature)"/.test(head) && /"(features|geometry)"\s*:/.test(head))
    return clear('geojson');
  return undefined;
}
