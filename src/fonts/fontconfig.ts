import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { replacementPairs } from './catalog.js';

/**
 * The fontconfig file every engine process gets through FONTCONFIG_FILE: the system's own
 * configuration, then one rule per replaced font, so LibreOffice, Chromium, librsvg and ImageMagick
 * draw a missing Calibri with Carlito, a missing SimSun with Noto Serif CJK SC, and so on, instead
 * of whichever face fontconfig ranks first.
 */

export interface FontconfigVariant {
  /**
   * False for engines that cannot put colour glyphs (bitmap emoji) into their output: colour fonts
   * are hidden from them, so emoji fall back to an outline face instead of vanishing.
   */
  colorGlyphs?: boolean;
}

/** For engines that cannot draw colour glyphs into their output: emoji come from an outline face. */
export const OUTLINE_EMOJI: FontconfigVariant = { colorGlyphs: false };

/**
 * The configuration the project's rules build on: the system's, or the one FONTCONFIG_FILE named
 * when fileconv started, so a host that tuned its fonts keeps its tuning. Read once, before
 * useFontconfigInProcess may point FONTCONFIG_FILE at the project's own file.
 */
const BASE_CONFIG = process.env.FONTCONFIG_FILE || '/etc/fonts/fonts.conf';

/** Text made safe for XML element content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The fontconfig XML for a variant. */
export function fontconfigXml(variant: FontconfigVariant = {}): string {
  // `accept` puts the substitute right after the named family with the same binding: a machine
  // that has the real font keeps it, one without gets the substitute before any generic default.
  const aliases = replacementPairs().map(
    ([font, substitute]) =>
      `  <alias binding="same"><family>${escapeXml(font)}</family><accept><family>${escapeXml(substitute)}</family></accept></alias>`,
  );
  const hideColor =
    variant.colorGlyphs === false
      ? [
          '  <selectfont><rejectfont><pattern><patelt name="color"><bool>true</bool></patelt></pattern></rejectfont></selectfont>',
        ]
      : [];
  return [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">',
    '<!-- Written by fileconv: the base configuration, then its font replacements. -->',
    '<fontconfig>',
    `  <include ignore_missing="yes">${escapeXml(BASE_CONFIG)}</include>`,
    ...hideColor,
    ...aliases,
    '</fontconfig>',
    '',
  ].join('\n');
}

/** Files written and checked by this process, by content hash. */
const written = new Map<string, string>();

/**
 * A folder for the file that only this user can write: the shared temp folder is open to every
 * local user, and a fontconfig file can name any font or configuration to load. One left by
 * someone else (or a symlink) is passed over for a fresh private folder.
 */
function ownFolder(root: string, name: string): string {
  const uid = process.getuid?.() ?? 0;
  const dir = join(root, `${name}-${uid}`);
  mkdirSync(dir, { recursive: true });
  const info = lstatSync(dir);
  const folder = info.isDirectory() && info.uid === uid ? dir : mkdtempSync(join(root, `${name}-`));
  // Ours: writable by us only (whatever the umask), readable by all, as engines may run as an
  // unprivileged user.
  chmodSync(folder, 0o755);
  return folder;
}

/**
 * Path of the fontconfig file for a variant, written on first use into a folder named after its
 * content hash (so versions never clash), checked once per process, and written again if something
 * removed it.
 */
export function fontconfigFile(variant: FontconfigVariant = {}): string {
  const xml = fontconfigXml(variant);
  const hash = createHash('sha256').update(xml).digest('hex').slice(0, 12);
  const known = written.get(hash);
  if (known && existsSync(known)) return known;
  const dir = ownFolder(process.env.FILECONV_TMPDIR ?? tmpdir(), `fileconv-fonts-${hash}`);
  const file = join(dir, 'fonts.conf');
  if (!existsSync(file) || readFileSync(file, 'utf8') !== xml) {
    // Written aside and renamed, so a concurrent reader never sees half a file.
    const partial = join(dir, `fonts.conf.${process.pid}.tmp`);
    writeFileSync(partial, xml, { mode: 0o644 });
    renameSync(partial, file);
  }
  written.set(hash, file);
  return file;
}

/** The folders of the fontconfig files written so far: a confined engine must be able to read them. */
export function fontconfigFolders(): string[] {
  return [...new Set([...written.values(), BASE_CONFIG].map((file) => dirname(file)))];
}

/**
 * Points fontconfig inside this process (libvips drawing SVG text through librsvg) at the
 * project's file. fontconfig reads the variable once, at its first use, so this runs before any
 * in-process text rendering; later calls change nothing.
 */
export function useFontconfigInProcess(variant: FontconfigVariant = {}): void {
  if (inProcess) return;
  inProcess = true;
  process.env.FONTCONFIG_FILE = fontconfigFile(variant);
}

let inProcess = false;

/** Environment that points an engine at the project's fontconfig file. */
export function fontconfigEnv(variant: FontconfigVariant = {}): Record<string, string> {
  return { FONTCONFIG_FILE: fontconfigFile(variant) };
}
