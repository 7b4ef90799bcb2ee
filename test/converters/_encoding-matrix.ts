import { execFileSync } from 'node:child_process';

/*
 * The encoding matrix's sources: the same short records in each encoding people still have text
 * files in, written by iconv as CSV, TSV, plain text, Markdown, HTML (its charset declared after
 * the first 2 KB of the head), XML (its charset in the declaration, by a name Windows tools
 * write), JSON, YAML and Python (a coding cookie).
 */

export interface MatrixEncoding {
  /** How the matrix names it. */
  name: string;
  /** iconv's name. */
  iconv: string;
  /** What a declaration inside the file calls it (HTML meta, XML declaration, coding cookie). */
  declared: string;
  bom?: number[];
  /** The records' language: a legacy encoding writes only its own script. */
  lang: keyof typeof RECORDS;
}

/** Records: a header and two rows, each cell one or two words. */
export const RECORDS = {
  ru: [
    ['Имя', 'Город', 'Заметка'],
    ['Иван', 'Москва', 'спасибо'],
    ['Ольга', 'Новгород', 'доставка завтра'],
  ],
  fr: [
    ['Prénom', 'Ville', 'Remarque'],
    ['Zoé', 'Orléans', 'déjà payé'],
    ['Jérôme', 'Besançon', 'reçu à côté'],
  ],
  ja: [
    ['名前', '都市', 'メモ'],
    ['山田', '東京', 'ありがとう'],
    ['佐藤', '大阪', '明日配達'],
  ],
  zhHant: [
    ['姓名', '城市', '備註'],
    ['張偉', '臺北', '謝謝'],
    ['陳靜', '高雄', '明天送達'],
  ],
  zhHans: [
    ['姓名', '城市', '备注'],
    ['张伟', '北京', '谢谢'],
    ['王静', '上海', '明天送达'],
  ],
  ko: [
    ['이름', '도시', '메모'],
    ['김민수', '서울', '감사합니다'],
    ['이영희', '부산', '내일 배송'],
  ],
} as const;

export const ENCODINGS: MatrixEncoding[] = [
  { name: 'UTF-8', iconv: 'UTF-8', declared: 'utf-8', lang: 'ja' },
  { name: 'UTF-8 BOM', iconv: 'UTF-8', declared: 'utf-8', bom: [0xef, 0xbb, 0xbf], lang: 'ko' },
  { name: 'UTF-16LE BOM', iconv: 'UTF-16LE', declared: 'utf-16', bom: [0xff, 0xfe], lang: 'ru' },
  { name: 'UTF-16LE', iconv: 'UTF-16LE', declared: 'utf-16', lang: 'ja' },
  { name: 'UTF-16BE BOM', iconv: 'UTF-16BE', declared: 'utf-16', bom: [0xfe, 0xff], lang: 'zhHans' },
  { name: 'UTF-16BE', iconv: 'UTF-16BE', declared: 'utf-16', lang: 'ru' },
  { name: 'windows-1251', iconv: 'WINDOWS-1251', declared: 'CP1251', lang: 'ru' },
  { name: 'windows-1252', iconv: 'WINDOWS-1252', declared: 'windows-1252', lang: 'fr' },
  { name: 'ISO-8859-5', iconv: 'ISO-8859-5', declared: 'ISO-8859-5', lang: 'ru' },
  { name: 'Shift_JIS', iconv: 'CP932', declared: 'Shift_JIS', lang: 'ja' },
  { name: 'Big5', iconv: 'BIG5', declared: 'Big5', lang: 'zhHant' },
  { name: 'GB18030', iconv: 'GB18030', declared: 'GB18030', lang: 'zhHans' },
  { name: 'EUC-KR', iconv: 'EUC-KR', declared: 'EUC-KR', lang: 'ko' },
];

/** The matrix's source formats, each written from the records as its users write it. */
export const FORMATS = ['csv', 'tsv', 'txt', 'md', 'html', 'xml', 'json', 'yaml', 'py'] as const;
export type MatrixFormat = (typeof FORMATS)[number];

/** The words a converted file must still hold: every cell's words, ASCII or not. */
export function wordsOf(e: MatrixEncoding): string[] {
  return RECORDS[e.lang].flat().flatMap((cell) => cell.split(' '));
}

/** A comment long enough to put a charset declaration past the first 2 KB of a page's head. */
const FILLER = `<!-- ${'layout notes '.repeat(170)}-->`;

function text(format: MatrixFormat, e: MatrixEncoding): string {
  const rows = RECORDS[e.lang];
  const [head, ...body] = rows;
  const wide = e.iconv.startsWith('UTF-16');
  switch (format) {
    case 'csv':
      return `${rows.map((r) => r.join(',')).join('\n')}\n`;
    case 'tsv':
      return `${rows.map((r) => r.join('\t')).join('\n')}\n`;
    case 'txt':
      return `${rows.map((r) => r.join(' ; ')).join('\n')}\n`;
    case 'md':
      return `# ${head.join(' ')}\n\n${body.map((r) => `- ${r.join(' ')}`).join('\n')}\n`;
    case 'html': {
      const meta = wide ? '' : `<meta http-equiv="Content-Type" content="text/html; charset=${e.declared}">`;
      const cells = (r: readonly string[], tag: string) =>
        `<tr>${r.map((c) => `<${tag}>${c}</${tag}>`).join('')}</tr>`;
      return `<!DOCTYPE html>\n<html><head>${FILLER}\n<title>${head[0]}</title>${meta}</head>\n<body><table>${cells(head, 'th')}${body.map((r) => cells(r, 'td')).join('')}</table></body></html>\n`;
    }
    case 'xml': {
      const item = (r: readonly string[]) =>
        `  <record><name>${r[0]}</name><city>${r[1]}</city><note>${r[2]}</note></record>`;
      return `<?xml version="1.0" encoding="${e.declared}"?>\n<records title="${head.join(' ')}">\n${body.map(item).join('\n')}\n</records>\n`;
    }
    case 'json':
      return `${JSON.stringify(
        body.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]]))),
        null,
        1,
      )}\n`;
    case 'yaml':
      return (
        body.map((r) => head.map((h, i) => `${i ? ' ' : '-'} ${h}: ${r[i]}`).join('\n')).join('\n') + '\n'
      );
    case 'py':
      return `# -*- coding: ${e.declared} -*-\nRECORDS = [\n${rows.map((r) => `    (${r.map((c) => `"${c}"`).join(', ')}),`).join('\n')}\n]\n`;
  }
}

const isMatrixFormat = (format: string): format is MatrixFormat =>
  (FORMATS as readonly string[]).includes(format);

/**
 * Any text source of the catalog: the matrix's own formats as above, subtitles as cues, every other
 * format (code, markup, configuration) as lines of the records, which is all the door reads.
 */
export function textOf(format: string, e: MatrixEncoding): string {
  if (isMatrixFormat(format)) return text(format, e);
  const rows = RECORDS[e.lang];
  if (format === 'srt')
    return rows
      .map((r, i) => `${i + 1}\n00:00:0${i},000 --> 00:00:0${i + 1},000\n${r.join(' ')}\n`)
      .join('\n');
  if (format === 'vtt')
    return `WEBVTT\n\n${rows.map((r, i) => `00:00:0${i}.000 --> 00:00:0${i + 1}.000\n${r.join(' ')}\n`).join('\n')}`;
  return `${rows.map((r) => r.join(' ')).join('\n')}\n`;
}

/** The source file's bytes: the text in the encoding, after the byte order mark a writer of it puts first. */
export function sourceBytes(format: string, e: MatrixEncoding): Buffer {
  const body = execFileSync('iconv', ['-f', 'UTF-8', '-t', e.iconv], { input: textOf(format, e) });
  return Buffer.concat([Buffer.from(e.bom ?? []), body]);
}
