import { writeFile } from 'node:fs/promises';
import { escapeXml } from '../../src/fonts/fontconfig.js';
import { writeOdfPackage } from '../../src/selftest/containers.js';

/** One line of the test document: a script, a phrase in it, and its language tag. */
export interface ScriptLine {
  script: string;
  text: string;
  lang: string;
}

/** Text in fifteen scripts plus emoji; each line is drawn as `<script>: <text>`. */
export const SCRIPT_LINES: readonly ScriptLine[] = [
  { script: 'Latin', text: 'The quick brown fox', lang: 'en' },
  { script: 'Greek', text: 'Γειά σου κόσμε', lang: 'el' },
  { script: 'Cyrillic', text: 'Привет мир', lang: 'ru' },
  { script: 'Chinese', text: '你好世界', lang: 'zh-CN' },
  { script: 'Japanese', text: 'こんにちはカタカナ', lang: 'ja' },
  { script: 'Korean', text: '안녕하세요 세계', lang: 'ko' },
  { script: 'Arabic', text: 'مرحبا بالعالم', lang: 'ar' },
  { script: 'Hebrew', text: 'שלום עולם', lang: 'he' },
  { script: 'Devanagari', text: 'नमस्ते दुनिया', lang: 'hi' },
  { script: 'Bengali', text: 'হ্যালো বিশ্ব', lang: 'bn' },
  { script: 'Tamil', text: 'வணக்கம் உலகம்', lang: 'ta' },
  { script: 'Thai', text: 'สวัสดีชาวโลก', lang: 'th' },
  { script: 'Ethiopic', text: 'ሰላም ልዑል', lang: 'am' },
  { script: 'Georgian', text: 'გამარჯობა', lang: 'ka' },
  { script: 'Armenian', text: 'Բարեւ աշխարհ', lang: 'hy' },
  { script: 'Emoji', text: '😀 🎉 👍 🌍', lang: 'und' },
];

/** The first line, in Cambria; every script line is in Calibri (Office's heading and body fonts). */
export const HEADING = 'Cambria heading over Calibri text';

const line = (l: ScriptLine) => `${l.script}: ${l.text}`;

const NS = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"',
].join(' ');

/** Paragraph (and cell) styles: Heading in Cambria, Body in Calibri, for every script class. */
function styles(family: 'paragraph' | 'table-cell', size: string): string {
  const text = (font: string) =>
    `<style:text-properties style:font-name="${font}" fo:font-size="${size}" style:font-name-asian="${font}" style:font-name-complex="${font}"/>`;
  return [
    `<style:style style:name="Heading" style:family="${family}">${text('Cambria')}</style:style>`,
    `<style:style style:name="Body" style:family="${family}">${text('Calibri')}</style:style>`,
  ].join('');
}

const FONT_FACES =
  '<office:font-face-decls><style:font-face style:name="Calibri" svg:font-family="Calibri"/><style:font-face style:name="Cambria" svg:font-family="Cambria"/></office:font-face-decls>';

function paragraphs(): string {
  return [
    `<text:p text:style-name="Heading">${escapeXml(HEADING)}</text:p>`,
    ...SCRIPT_LINES.map((l) => `<text:p text:style-name="Body">${escapeXml(line(l))}</text:p>`),
  ].join('');
}

function content(body: string, automatic: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content ${NS} office:version="1.2">${FONT_FACES}<office:automatic-styles>${automatic}</office:automatic-styles><office:body>${body}</office:body></office:document-content>`;
}

export function writeOdt(path: string): Promise<void> {
  const body = `<office:text>${paragraphs()}</office:text>`;
  return writeOdfPackage(
    path,
    'application/vnd.oasis.opendocument.text',
    content(body, styles('paragraph', '12pt')),
  );
}

export function writeOds(path: string): Promise<void> {
  const cell = (style: string, text: string) =>
    `<table:table-row><table:table-cell table:style-name="${style}" office:value-type="string"><text:p>${escapeXml(text)}</text:p></table:table-cell></table:table-row>`;
  const rows = [cell('Heading', HEADING), ...SCRIPT_LINES.map((l) => cell('Body', line(l)))].join('');
  const column =
    '<style:style style:name="Wide" style:family="table-column"><style:table-column-properties style:column-width="12cm"/></style:style>';
  const body = `<office:spreadsheet><table:table table:name="Scripts"><table:table-column table:style-name="Wide"/>${rows}</table:table></office:spreadsheet>`;
  return writeOdfPackage(
    path,
    'application/vnd.oasis.opendocument.spreadsheet',
    content(body, column + styles('table-cell', '12pt')),
  );
}

export function writeOdp(path: string): Promise<void> {
  const frame = `<draw:frame svg:x="1cm" svg:y="0.5cm" svg:width="26cm" svg:height="18cm"><draw:text-box>${paragraphs()}</draw:text-box></draw:frame>`;
  const body = `<office:presentation><draw:page draw:name="scripts">${frame}</draw:page></office:presentation>`;
  return writeOdfPackage(
    path,
    'application/vnd.oasis.opendocument.presentation',
    content(body, styles('paragraph', '14pt')),
  );
}

export function writeHtml(path: string): Promise<void> {
  const lines = SCRIPT_LINES.map(
    (l) => `<p lang="${l.lang}">${escapeXml(l.script)}: ${escapeXml(l.text)}</p>`,
  ).join('\n');
  return writeFile(
    path,
    `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Scripts</title>
<style>body { font-family: Calibri; font-size: 12pt } h1 { font-family: Cambria; font-size: 16pt }</style>
</head><body>
<h1>${escapeXml(HEADING)}</h1>
${lines}
</body></html>
`,
  );
}

export function writeMarkdown(path: string): Promise<void> {
  return writeFile(path, `# ${HEADING}\n\n${SCRIPT_LINES.map((l) => `${line(l)}\n`).join('\n')}`);
}
