import type { ConversionEdge } from '../engine/contract.js';
import {
  type FormatFamily,
  type FormatId,
  GRAPHICS_TOOL_IMAGES,
  getFormat,
  SOUNDLESS_VIDEO,
  SUBTITLE_FORMATS,
} from '../formats/index.js';

/**
 * The catalog rule: a chain is listed only where every step keeps the meaning of the content.
 * The planner carries what the content is (its kind) along a chain; each step either keeps the
 * kind, turns it into another one (rendering pages to pictures, OCR, speech), or has no sensible
 * result and ends the chain. Every format a step writes must be one that can hold the kind.
 */
export type ContentKind =
  | 'prose'
  | 'code'
  | 'table'
  | 'picture'
  | 'rendering'
  | 'animation'
  | 'frame'
  | 'recording'
  | 'speech'
  | 'motion'
  | 'footage'
  | 'clip'
  | 'recognised'
  | 'transcript'
  | 'contents'
  | 'cues'
  | 'pictures'
  | 'report';

/** What a step does to the content, from the engine family and the family of the format it writes. */
export type StepAction =
  | 'words'
  | 'image'
  | 'audio'
  | 'video'
  | 'ocr'
  | 'speak'
  | 'transcribe'
  | 'extract'
  | 'inspect';

/** Which formats can hold a kind: whole format families, plus or minus single formats. */
interface Holders {
  families: readonly FormatFamily[];
  plus?: readonly FormatId[];
  except?: readonly FormatId[];
}

/** A turn a step may take: the kind it leaves, and whether it may only read the user's own file. */
interface Turn {
  becomes: ContentKind;
  /** The step must be the first of its chain (it reads the file the user gave, not a derived one). */
  firstStepOnly?: true;
}

export interface KindRule {
  kind: ContentKind;
  /** What the kind is, for the docs. */
  what: string;
  holders: Holders;
  turns: Partial<Record<StepAction, Turn>>;
  /** Why the kind goes no further than its holders and turns: the chain classes it keeps out. */
  excludes: string;
}

const WORD_FAMILIES: readonly FormatFamily[] = [
  'document',
  'text',
  'ebook',
  'data',
  'spreadsheet',
  'presentation',
  'archive',
];
/** Formats that hold printed pages, and so a picture placed on a page. */
const PAGE_FORMATS: readonly FormatId[] = ['pdf', 'pdfa', 'ps'];
const PICTURE_HOLDERS: Holders = { families: ['image'], plus: PAGE_FORMATS };
/** The image formats pictures are shared in: all but the graphics tools' own. */
const SHARED_IMAGES: Holders = { families: ['image'], except: GRAPHICS_TOOL_IMAGES };
/** A picture stays one on a page or in another image format, and becomes text through OCR only. */
const PICTURE_TURNS: KindRule['turns'] = {
  image: { becomes: 'picture' },
  words: { becomes: 'picture' },
  ocr: { becomes: 'recognised' },
};

export const KIND_RULES: readonly KindRule[] = [
  {
    kind: 'prose',
    what: 'text with its structure: documents, plain text, markup, ebooks',
    holders: { families: WORD_FAMILIES },
    turns: {
      words: { becomes: 'prose' },
      image: { becomes: 'rendering' },
      // a PDF that is scanned pages has its words in pictures
      ocr: { becomes: 'recognised' },
      speak: { becomes: 'speech', firstStepOnly: true },
      extract: { becomes: 'pictures', firstStepOnly: true },
      inspect: { becomes: 'report', firstStepOnly: true },
    },
    excludes:
      'Speech is made only from the plain text the user gave (txt to mp3): a Word file, a PDF or an ' +
      'ebook read aloud after flattening to text loses headings, tables and reading order, so ' +
      'document to audio is not listed. Documents never become video.',
  },
  {
    kind: 'code',
    what: 'source code and configuration files',
    holders: { families: ['code'], plus: ['txt', 'html', 'pdf'] },
    turns: { words: { becomes: 'code' } },
    excludes:
      'Code is read as text, on a web page or on paper: plain text, HTML and PDF (highlighted, ' +
      'with line numbers). A Word file, an ebook, a slide or a picture of a program, or a program ' +
      'read aloud, is nothing anyone converting source code expects.',
  },
  {
    kind: 'table',
    what: 'rows and cells, or slides: spreadsheets, data files, presentations',
    holders: { families: WORD_FAMILIES.filter((f) => f !== 'ebook') },
    turns: { words: { becomes: 'table' }, image: { becomes: 'rendering' } },
    excludes:
      'An ebook is reflowable prose; a sheet, a data file or a slide deck poured into one is not a ' +
      'book anyone reads, so spreadsheet, data and presentation to ebook are not listed, nor to audio.',
  },
  {
    kind: 'picture',
    what: 'an image, or a page rendered to one',
    holders: PICTURE_HOLDERS,
    turns: PICTURE_TURNS,
    excludes:
      'A picture may sit on a page (png to pdf) but in no format made for text: image to ebook, ' +
      'html, Markdown, tex, rst or office documents would only wrap the picture or lose it. Text ' +
      'comes out of a picture through OCR only.',
  },
  {
    kind: 'rendering',
    what: 'a page of a document, a sheet or a slide rendered to a picture',
    holders: { ...SHARED_IMAGES, plus: PAGE_FORMATS },
    turns: {
      image: { becomes: 'rendering' },
      words: { becomes: 'rendering' },
      ocr: { becomes: 'recognised' },
    },
    excludes:
      'As a picture, but a page is a preview to look at or share: it is not written in the formats ' +
      `of graphics tools (${GRAPHICS_TOOL_IMAGES.join(', ')}), which hold pictures made to be edited, ` +
      'textures or measurements.',
  },
  {
    kind: 'animation',
    what: 'an animated GIF as given by the user',
    holders: PICTURE_HOLDERS,
    turns: { ...PICTURE_TURNS, video: { becomes: 'clip' } },
    excludes: 'As a picture; in addition an animation becomes a video (gif to mp4, webm).',
  },
  {
    kind: 'frame',
    what: 'a still or a GIF taken from a video',
    holders: SHARED_IMAGES,
    turns: { image: { becomes: 'frame' } },
    excludes:
      'A frame of a video is a thumbnail or a clip: it is not put on a page nor written in the ' +
      'formats of graphics tools, and OCR never reads it (nobody converting a video to a document ' +
      'means "recognise the text of one frame").',
  },
  {
    kind: 'recording',
    what: 'recorded sound: audio files and the soundtrack of a video',
    holders: { families: ['audio'] },
    turns: { audio: { becomes: 'recording' }, transcribe: { becomes: 'transcript' } },
    excludes: 'Sound becomes text only through speech recognition; it never becomes a picture or a video.',
  },
  {
    kind: 'speech',
    what: 'speech synthesised from text',
    holders: { families: ['audio'] },
    turns: { audio: { becomes: 'speech' } },
    excludes: 'Synthesised speech is not recognised back into text (the text was the input).',
  },
  {
    kind: 'motion',
    what: 'a video',
    holders: { families: ['video'] },
    turns: { video: { becomes: 'motion' }, audio: { becomes: 'recording' }, image: { becomes: 'frame' } },
    excludes:
      'A video gives a video, its soundtrack, a frame or the transcript of its speech; never a document.',
  },
  {
    kind: 'footage',
    what: 'a video in a format that has no sound (YUV4MPEG2)',
    holders: { families: ['video'] },
    turns: { video: { becomes: 'footage' }, image: { becomes: 'frame' } },
    excludes:
      'Its format holds frames only: it never gives audio, nor a transcript, in one step or through another video.',
  },
  {
    kind: 'clip',
    what: 'a video made from an animation',
    holders: { families: ['video'] },
    turns: { video: { becomes: 'clip' } },
    excludes: 'It has no sound, so it never gives audio; its frames are the animation the user gave.',
  },
  {
    kind: 'recognised',
    what: 'text read from a picture by OCR: words without structure',
    holders: { families: ['text', 'document'], except: ['tex', 'rst'] },
    turns: { words: { becomes: 'recognised' } },
    excludes:
      'Recognised text is a draft to read or edit: plain text, Markdown, HTML, office documents and ' +
      'PDF. It has no chapters for an ebook nor markup for tex or rst, and it is never read aloud ' +
      '(OCR to speech) or rendered back to a picture.',
  },
  {
    kind: 'transcript',
    what: 'text recognised from speech',
    holders: { families: [], plus: ['txt'] },
    turns: {},
    excludes:
      'A transcript is plain text and is offered as txt only: mp3 or mp4 to pdf, docx or an ebook ' +
      'through speech recognition is not what anyone converting a recording or a video to a ' +
      'document expects, and the recogniser gives no punctuation or layout to carry.',
  },
  {
    kind: 'contents',
    what: 'the entries of an archive or a compressed file',
    holders: { families: ['archive'], plus: ['txt'] },
    turns: { words: { becomes: 'contents' } },
    excludes:
      'An archive gives a listing of its entries (plain text) or another archive of the same ' +
      'entries; the listing is not a document to lay out, so archive to PDF, Word or HTML is not listed.',
  },
  {
    kind: 'cues',
    what: 'timed captions or lyrics: subtitle files',
    holders: { families: [], plus: [...SUBTITLE_FORMATS, 'txt'] },
    turns: { words: { becomes: 'cues' } },
    excludes:
      'Subtitles are lines timed to a recording: they convert between subtitle formats and to ' +
      'plain text (their lines without times). A PDF, an office document, an ebook or speech made ' +
      'of captions is nothing anyone converting subtitles expects.',
  },
  {
    kind: 'pictures',
    what: 'the pictures a PDF holds, taken out as they are stored',
    holders: { families: [], plus: ['zip'] },
    turns: {},
    excludes:
      'Pictures are taken out of the PDF the user gave (pdf to zip), never of one made on the way: ' +
      'a Word file or a web page converted to PDF first has its pictures recompressed by then.',
  },
  {
    kind: 'report',
    what: "what a file is and carries: a PDF's pages, metadata and checked signatures",
    holders: { families: [], plus: ['json'] },
    turns: {},
    excludes:
      'A report describes the file the user gave (pdf to json), never one made on the way: the ' +
      'signatures of a Word file converted to PDF first would be none, and its metadata the ' +
      "converter's. Nothing follows a report.",
  },
];

const RULES = new Map(KIND_RULES.map((r) => [r.kind, r]));

/** The kind of the user's file, from its format. */
export function sourceKind(format: FormatId): ContentKind {
  if (format === 'gif') return 'animation';
  if (SUBTITLE_FORMATS.includes(format)) return 'cues';
  if (SOUNDLESS_VIDEO.includes(format)) return 'footage';
  switch (getFormat(format)?.family) {
    case 'image':
      return 'picture';
    case 'audio':
      return 'recording';
    case 'video':
      return 'motion';
    case 'spreadsheet':
    case 'presentation':
    case 'data':
      return 'table';
    case 'code':
      return 'code';
    case 'archive':
      return 'contents';
    default:
      return 'prose';
  }
}

export function stepAction(edge: ConversionEdge): StepAction {
  const target = getFormat(edge.to)?.family;
  if (edge.family === 'ocr') return 'ocr';
  if (edge.family === 'pictures') return 'extract';
  if (edge.family === 'report') return 'inspect';
  if (edge.family === 'voice') return target === 'audio' ? 'speak' : 'transcribe';
  if (target === 'image' || target === 'audio' || target === 'video') return target;
  return 'words';
}

function holds(holders: Holders, format: FormatId): boolean {
  if (holders.except?.includes(format)) return false;
  if (holders.plus?.includes(format)) return true;
  const family = getFormat(format)?.family;
  return family !== undefined && holders.families.includes(family);
}

/**
 * The kind after `edge` runs on content of `kind` as step number `index` (0-based), or undefined
 * when the step would not keep the meaning (the chain is then not listed).
 */
export function nextKind(kind: ContentKind, edge: ConversionEdge, index: number): ContentKind | undefined {
  const turn = RULES.get(kind)?.turns[stepAction(edge)];
  if (!turn || (turn.firstStepOnly && index > 0)) return undefined;
  return holds(RULES.get(turn.becomes)!.holders, edge.to) ? turn.becomes : undefined;
}

/** The formats a kind may be written as, in words for the docs. */
export function holdersText(rule: KindRule): string {
  const { families, plus = [], except = [] } = rule.holders;
  const parts = families.length > 0 ? [`${families.join(', ')} formats`] : [];
  if (plus.length > 0) parts.push(`${parts.length > 0 ? 'and ' : ''}${plus.join(', ')}`);
  if (except.length > 0) parts.push(`except ${except.join(', ')}`);
  return parts.join(' ');
}
