import { FORMATS } from './registry.js';
import type { FormatDef, FormatId } from './types.js';

export { GRAPHICS_TOOL_IMAGES, SOUNDLESS_VIDEO, SUBTITLE_FORMATS } from './rows/media.js';
export { FAMILIES, type FormatDef, type FormatFamily, type FormatId } from './types.js';
export { FORMATS };

const byId = new Map(FORMATS.map((f) => [f.id, f]));
const byName = new Map<string, FormatDef>();
// Ids win over aliases, aliases over extensions, so `pdf` never resolves to `pdfa`.
for (const f of FORMATS) for (const e of f.extensions) if (!byName.has(e)) byName.set(e, f);
for (const f of FORMATS) for (const a of f.aliases) byName.set(a, f);
for (const f of FORMATS) byName.set(f.id, f);
const byFilename = new Map<string, FormatDef>();
for (const f of FORMATS) for (const n of f.filenames ?? []) byFilename.set(n, f);
const byMime = new Map<string, FormatDef>();
for (const f of FORMATS) if (!byMime.has(f.mime)) byMime.set(f.mime, f);

/** The format with this canonical id, or undefined. */
export function getFormat(id: FormatId): FormatDef | undefined {
  return byId.get(id);
}

/** Resolves an id, alias or extension (any case, leading dot allowed) to its canonical format. */
export function resolveFormat(name: string): FormatDef | undefined {
  return byName.get(name.trim().toLowerCase().replace(/^\./, ''));
}

/** The format a file name's extension names, or undefined. */
export function formatFromFilename(filename: string): FormatDef | undefined {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const lower = base.toLowerCase();
  const whole = byFilename.get(lower);
  if (whole) return whole;
  const dot = base.lastIndexOf('.');
  const byExtension = dot > 0 && dot < base.length - 1 ? resolveFormat(base.slice(dot + 1)) : undefined;
  // `Makefile.in`, `Dockerfile.dev`: a name of its own before an extension that names nothing.
  return byExtension ?? (dot > 0 ? byFilename.get(lower.slice(0, lower.indexOf('.'))) : undefined);
}

/** The format a Content-Type names (parameters ignored), or undefined. */
export function formatFromMime(contentType: string): FormatDef | undefined {
  const mime = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!mime || mime === 'application/octet-stream') return undefined;
  return byMime.get(mime) ?? MIME_ALIASES[mime];
}

const MIME_ALIASES: Record<string, FormatDef | undefined> = {
  'image/jpg': byId.get('jpg'),
  'image/x-ms-bmp': byId.get('bmp'),
  'image/vnd.microsoft.icon': byId.get('ico'),
  'text/xml': byId.get('xml'),
  'text/yaml': byId.get('yaml'),
  'application/x-yaml': byId.get('yaml'),
  'text/x-markdown': byId.get('md'),
  'audio/x-wav': byId.get('wav'),
  'audio/vnd.wave': byId.get('wav'),
  'audio/mp3': byId.get('mp3'),
  'audio/x-flac': byId.get('flac'),
  'application/x-zip-compressed': byId.get('zip'),
  'text/rtf': byId.get('rtf'),
  'application/x-gzip': byId.get('gz'),
};

/** The extension an output file of this format gets. */
export function extensionOf(id: FormatId): string {
  return byId.get(id)?.extensions[0] ?? id;
}
