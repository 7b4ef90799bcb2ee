import type { FormatId } from '../../formats/index.js';
import { requiredLiteral } from './literal.js';
import { DOCUMENT_TRAITS } from './scored-documents.js';

/** A trait of a text format: a pattern (or a test) and how much finding it anywhere counts. */
type Trait = [pattern: RegExp | ((text: string) => boolean), weight: number];

/** A title between an overline and an underline of one punctuation character, as long as the title. */
function rstOverlinedTitle(text: string): boolean {
  for (const m of text.matchAll(/^([=\-~^"'`#*+])\1{2,}[ \t]*\n(.+)\n\1{3,}[ \t]*$/gm)) {
    const line = m[0].split('\n');
    const title = m[2]!.trim();
    if (
      title !== '' &&
      line[0]!.trimEnd().length >= title.length &&
      line[2]!.trimEnd().length >= title.length
    )
      return true;
  }
  return false;
}

/**
 * A title underlined with a run of one punctuation character at least as
 * long as the title, as reStructuredText requires; a `"""` under a long line is not one.
 */
function rstTitle(chars: string): (text: string) => boolean {
  const re = new RegExp(`^(.+)\\n([${chars}])\\2{2,}\\s*$`, 'gm');
  return (text) => {
    for (const m of text.matchAll(re)) {
      const title = m[1]!.trim();
      if (
        title !== '' &&
        !/^[=\-~^"'`#*+:.]+$/.test(title) &&
        m[0].trimEnd().length - m[1]!.length - 1 >= title.length
      )
        return true;
    }
    return false;
  };
}

/**
 * INI: two or more `[section]` headers, and `key = value` lines making up most of the rest
 * (`;` and `#` comments aside). TOML files that parse are taken before this.
 */
function iniSections(text: string): boolean {
  // Most texts have no section header at all: one scan settles them.
  if (!/^\s*\[[^\]\n]+\]\s*$/m.test(text)) return false;
  let sections = 0;
  let pairs = 0;
  let other = 0;
  for (const line of text.split('\n', 400)) {
    const t = line.trim();
    if (t === '' || t.startsWith(';') || t.startsWith('#')) continue;
    if (/^\[[^\]\n]+\]$/.test(t)) sections++;
    else if (/^[\w.$/ -]+\s*[=:]/.test(t)) pairs++;
    else other++;
  }
  return sections >= 2 && pairs >= sections && other <= pairs / 4;
}

/**
 * Traits of the prose and code formats. Each trait counts once however often it occurs,
 * so a long file does not outscore a short one on one repeated habit.
 */
const TRAITS: Record<FormatId, Trait[]> = {
  md: [
    // Front matter followed by a body (the YAML sniffer has already declined the whole as YAML).
    [/^---\r?\n(?:.*\r?\n){1,100}?---\r?\n\s*\S/, 3],
    [/^#{1,6} \S/m, 2],
    [/^```/m, 2],
    [/\[[^\]\n]+\]\([^)\s]+\)/, 2],
    [/!\[[^\]\n]*\]\(/, 2],
    [/^\|.*\|\s*$\n^\|?\s*:?-{3,}/m, 3],
    [/\*\*[^*\n]+\*\*/, 1],
    [/(^|\s)[*_][^*_\s][^*_\n]*[*_]([\s.,;:!?]|$)/m, 1],
    [/^\s{0,3}[-*+] \S/m, 1],
    [/^\s{0,3}\d+\. \S/m, 1],
    [/^> /m, 1],
    [/`[^`\n]+`/, 1],
  ],
  rst: [
    [/^\.\. [\w-]+::/m, 3],
    [/^\.\. _[^:]+:/m, 3],
    [/::\s*$/m, 1],
    [/``[^`\n]+``/, 2],
    [/:[a-z]+:`[^`]+`/, 2],
    [/`[^`\n]+`_/, 2],
    [rstOverlinedTitle, 3],
    [rstTitle('~^"\'`#*+:.'), 2],
    [rstTitle('=\\-'), 1],
  ],
  org: [
    [/^#\+(title|author|date|options|startup|property|name|results):/im, 3],
    [/^\s*#\+begin_(src|quote|example|export|center)\b/im, 3],
    // A table rule joined with `+` inside `|...|` is Org's own (Markdown joins with `|`).
    [/^\s*\|-+(\+-+)+\|\s*$/m, 4],
    [/^\s*:PROPERTIES:\s*$/m, 3],
    [/\[\[[^\]\n]+\](\[[^\]\n]+\])?\]/, 2],
    [/^\*+ (TODO |DONE )?\S/m, 1],
  ],
  tex: [
    [/\\documentclass(\[[^\]]*\])?\{/, 5],
    [/\\begin\{document\}/, 4],
    [/\\usepackage(\[[^\]]*\])?\{/, 3],
    [/\\(section|subsection|chapter)\*?\{/, 2],
    [/\\begin\{(itemize|enumerate|equation|figure|table|tabular)\}/, 2],
    [/\\(textbf|emph|textit|cite|ref|label)\{/, 1],
  ],
  py: [
    [/^\s*def \w+\(.*\)\s*(->\s*[^:]+)?:\s*$/m, 3],
    [/^\s*class \w+(\(.*\))?:\s*$/m, 3],
    [/^(import [\w.]+|from [\w.]+ import [\w*(])/m, 2],
    [/if __name__ == ['"]__main__['"]/, 4],
    [/\bself\.\w+/, 1],
    [/^\s*(elif .*|else|try|except.*|finally):\s*$/m, 2],
    [/\bprint\(/, 1],
    // Statements at the margin: reStructuredText and Markdown indent or fence their code samples.
    [/^(def|class) \w+.*:\s*$/m, 3],
    [/^from \.[\w.]* import /m, 2],
    [/^[ru]?"""/m, 1],
    [/^\s*(return|raise|yield|pass)\b/m, 1],
    [/^\s*@\w+(\.\w+)*(\(.*\))?\s*$/m, 2],
    [/^# -\*- coding[:=]/m, 2],
    [/^(__all__|__version__|__author__)\s*=/m, 3],
    [/^\w+ = \{\s*$|^\s+(['"])[^'"\n]*\1: /m, 1],
  ],
  c: [
    [/^#\s*include\s*[<"][\w./-]+[>"]/m, 3],
    [/^#\s*(define|ifndef|ifdef|endif|undef|pragma)\b/m, 2],
    [/^\s*typedef\s+(struct|enum|union|unsigned|int|char|void|long)\b/m, 3],
    [
      /^\s*(static\s+|extern\s+|inline\s+)*(const\s+)?(unsigned\s+|signed\s+)?(void|int|char|long|short|double|float|size_t|struct\s+\w+)\s*\**\s*\w+\s*\(/m,
      2,
    ],
    [/\/\*[\s\S]*?\*\//, 1],
    [/^\s*(struct|enum|union)\s+\w+\s*\{/m, 2],
  ],
  // C++ traits only count on top of C's (see bestScored), as TypeScript's on JavaScript's.
  cpp: [
    [
      /^\s*#\s*include\s*<(iostream|vector|string|memory|map|algorithm|cstdio|cstdlib|cstring|cmath|cstdint)>/m,
      3,
    ],
    [/\bstd::\w+/, 3],
    [/^\s*namespace\s+[\w:]+\s*\{|^\s*using\s+namespace\s+[\w:]+\s*;/m, 3],
    [/^\s*template\s*</m, 3],
    [/^\s*(public|private|protected):\s*$/m, 2],
    [/\w::~?\w+\s*\(/, 2],
    [/\b(nullptr|constexpr|noexcept)\b|\bvirtual\s+\w/, 2],
    // A class's code written out of its header names no std:: and no template: its constructors
    // and destructors (`Parser::Parser(`, `Parser::~Parser(`) and references caught by catch.
    [/^\s*(\w+)::~?\1\s*\(/m, 3],
    [/\bcatch\s*\(\s*(const\s+)?[\w:]+(\s+const)?\s*&/, 2],
  ],
  go: [
    [/^package \w+\s*$/m, 3],
    [/^import \($|^import "[\w./-]+"\s*$/m, 3],
    [/^func (\([\w ]+\*?\w+\) )?\w+\(/m, 4],
    [/^type \w+ (struct|interface) \{/m, 3],
    [/\w := /, 1],
    [/\bfmt\.\w+\(|\berr != nil\b/, 2],
  ],
  rs: [
    [/^\s*(pub(\(\w+\))?\s+)?(async\s+)?fn\s+\w+(<[^>\n]*>)?\s*\(/m, 4],
    [/^\s*(pub\s+)?use\s+(std|crate|super|self|core)::/m, 3],
    [/\blet\s+mut\s+\w/, 3],
    [/^\s*impl(<[^>\n]*>)?\s+[\w:]+/m, 3],
    [/^\s*#!?\[(derive|cfg|test|allow|deny|warn|inline)\b/m, 3],
    [/\b(println|format|vec|panic|assert_eq|write|writeln)!\s*[([]/, 2],
    [/->\s*(Self|Result<|Option<|&(mut )?\w|String\b|[ui](8|16|32|64|size)\b|bool\b)/, 2],
  ],
  java: [
    [/^package [\w.]+;\s*$/m, 4],
    [/^import (static )?[\w.]+(\.\*)?;\s*$/m, 3],
    [/\b(public|private|protected)\s+(static\s+|final\s+|abstract\s+)*(class|interface|enum)\s+\w+/, 3],
    [
      /\b(public|private|protected)\s+(static\s+|final\s+)*(void|int|long|boolean|String|[A-Z]\w*<[^>\n]*>)\s+\w+\s*[(;=]/,
      2,
    ],
    [/\bSystem\.(out|err)\.print/, 3],
    [/^\s*@(Override|Test|Deprecated|SuppressWarnings)\b/m, 3],
  ],
  rb: [
    // A `def` line without Python's colon.
    [/^\s*def (self\.)?\w+[?!]?(\(.*\))?\s*$/m, 2],
    [/^\s*end\s*$/m, 2],
    [/^\s*require(_relative)? ['"]/m, 3],
    [/^\s*(module|class) [A-Z]\w*(::\w+)*( < [A-Z][\w:]*)?\s*$/m, 3],
    [/\bdo \|[\w, ]+\|/, 3],
    [/\battr_(accessor|reader|writer)\b/, 3],
    [/^\s*elsif\b/m, 2],
    [/\bputs\b/, 1],
  ],
  php: [
    [/<\?php\b/, 5],
    [/\$this->\w+/, 3],
    [/^\s*(public |private |protected )?(static )?function \w+\s*\(/m, 1],
    [/\$\w+\s*=[^=]/, 1],
    [/^\s*(namespace [\w\\]+|use [\w\\]+\\\w+);/m, 3],
  ],
  pl: [
    [/^\s*use (strict|warnings)\b/m, 4],
    [/^\s*my [$@%]\w+/m, 3],
    [/^\s*sub \w+\s*\{/m, 3],
    [/\$_\b|@ARGV\b|\$ENV\{/, 2],
    [/^package \w+(::\w+)+;/m, 3],
    [/^=(head\d|pod|cut)\b/m, 2],
    [/=~\s*(s|m|tr)?\//, 1],
  ],
  lua: [
    [/^\s*local function \w+/m, 4],
    [/^\s*local \w+(\s*,\s*\w+)*\s*=/m, 3],
    [/^\s*function \w+[.:]\w+\s*\(/m, 3],
    [/\belseif\b/, 2],
    [/\b(i?pairs)\(/, 3],
    [/--\[\[/, 3],
    [/~=/, 1],
    [/\bnil\b/, 1],
  ],
  // PostScript programs without a `%!` header line: procedure files a PostScript interpreter
  // loads (Ghostscript's own initialisation files), which open with `%` comments and define
  // procedures on literal names.
  ps: [
    [/^\s*\/[\w.-]+\s*\{[^{}\n]*(\}\s*(bind\s+)?(executeonly\s+)?(def|odef)\b|$)/m, 2],
    [/^\s*\}\s*(bind\s+)?(executeonly\s+)?(readonly\s+)?(def|odef)\b/m, 3],
    [/\b(currentdict|systemdict|userdict|globaldict|currentfile|countdictstack|currentglobal)\b/, 3],
    [/\b(moveto|rlineto|showpage|setgray|setrgbcolor|findfont|scalefont|setfont|gsave|grestore)\b/, 2],
    [/\b(exch|dup|roll|index)\s+(pop|def|exch|dup|get|put|known)\b/, 2],
    [/^%/m, 1],
  ],
  ini: [[iniSections, 5]],
  dockerfile: [
    [/^FROM\s+\S+(\s+AS\s+\w+)?\s*$/m, 2],
    [/^(RUN|COPY|ADD|CMD|ENTRYPOINT|WORKDIR|EXPOSE|ENV|ARG|LABEL|USER|VOLUME|HEALTHCHECK)\s/m, 2],
    [/^(CMD|ENTRYPOINT|RUN)\s+\["/m, 2],
  ],
  makefile: [
    [/^\.PHONY\s*:/m, 4],
    [/^[A-Za-z_][\w.]*\s*(:=|\?=|\+=|::=)/m, 3],
    [/\$[<^]|\$\(@[DF]\)|\$\((MAKE|CC|CFLAGS|LDFLAGS|CXX|RM|INSTALL)\)/, 3],
    [/^(ifeq|ifneq)\s*\(|^endif\s*$/m, 3],
    [/^%[\w.]*\s*:/m, 3],
    [/^[\w./$()-]+( [\w./$()-]+)*\s*:([^=]|$)[^\n]*\n\t\S/m, 2],
  ],
  js: [
    [/\b(const|let|var)\s+[\w$]+\s*=/, 2],
    [/\bfunction\s*\(/, 2],
    [/\.prototype\.\w+\s*=/, 2],
    [/['"]use strict['"]/, 3],
    [/\bmodule\.exports\b|\bexports\.\w+\s*=/, 3],
    [/\bthis\.\w+/, 1],
    [/^\s*(export )?(async )?function\*? \w+\s*\(/m, 2],
    [/=>/, 1],
    [/\brequire\(['"]/, 2],
    [/^import .* from ['"]|^import ['"]/m, 2],
    [/^export (default|const|class|function|\{)/m, 2],
    [/\bconsole\.\w+\(/, 2],
    [/;\s*$/m, 1],
  ],
  ts: [
    // An interface opens its body on the line; prose may start a line with the word.
    [/^\s*(export )?interface \w+(<[^>\n]*>)?( extends [\w<>., ]+)?\s*\{/m, 3],
    [/^\s*(export )?declare /m, 3],
    [/^\s*import type /m, 3],
    [/\): [A-Z]?\w+(<[^>\n]*>)?(\[\])?( \{|;)/, 2],
    [/\w: [A-Z]\w*(<[^>\n]*>)?(\[\])?[;,)=]/, 2],
    [/^\s*(export )?type \w+(<[^>]*>)? = /m, 3],
    [/\w\)?: (string|number|boolean|void|unknown|any|never)(\[\])?\b/, 3],
    [/\bas const\b/, 2],
    [/^\s*(export )?(const )?enum \w+/m, 2],
    [/\b(private|public|protected|readonly) \w+[:;(]/, 2],
  ],
  sh: [
    [/^\s*if \[\[? /m, 3],
    [/^[A-Za-z_][A-Za-z0-9_]*=("|'|\$|\S)/m, 2],
    [/^\s*(fi|done|esac)\s*$/m, 3],
    [/^\s*(then|do)\s*$/m, 2],
    [/^\s*export [A-Z_][A-Z0-9_]*=/m, 2],
    [/^\s*set -[euxo]/m, 3],
    [/\$\{?[A-Za-z_]\w*\}?/, 1],
    [/^\s*echo /m, 1],
  ],
  css: [
    [/^[^{}\n;]+\{\s*$/m, 1],
    [/^[^{}\n;]+\{\s*[a-z-]+\s*:[^{}\n]*\}\s*$/m, 2],
    [/^\s*[a-z-]+\s*:\s*[^;{}\n]+;\s*$/m, 2],
    [/^\s*\}\s*$/m, 1],
    [/^@(media|import|font-face|keyframes|charset)\b/m, 3],
    // Selectors are words joined by blanks or a combinator; each join is required, which keeps
    // the pattern linear on long lines of words. Only a combinator may end a line: with any
    // whitespace as a join, a word list (one word a line) was read on from every line to its end.
    [/^[.#]?[a-zA-Z][\w-]*(([ \t]*[,>+~]\s*|[ \t]+)[.#]?[a-zA-Z][\w-]*)*\s*\{/m, 2],
  ],
  // Statements start lines; lowercase keywords in prose ("select the text from") must not count.
  sql: [
    [/\bSELECT\b[\s\S]{1,300}?\bFROM\b/, 2],
    [/^\s*select\b.*\bfrom\b.*;\s*$/im, 2],
    [/^\s*insert\s+into\s+[\w."]+/im, 3],
    [
      /^\s*create\s+(or\s+replace\s+)?(table|view|index|unique index|function|extension|schema|type|trigger|sequence)\b/im,
      3,
    ],
    [
      /^\s*(update\s+[\w."]+\s+set|delete\s+from|alter\s+(table|function|extension)|drop\s+(table|view|function))\b/im,
      3,
    ],
    [/^\s*(grant|revoke)\s+.*\bon\b/im, 2],
    [/^\s*comment\s+on\s+\w+/im, 2],
    [/\blanguage\s+(plpgsql|sql|c)\b/i, 2],
    [/\bWHERE\b/, 1],
    [/^--( |$)/m, 1],
  ],
  // Last, so that a tie goes to the formats above.
  ...DOCUMENT_TRAITS,
};

/**
 * CMake's language, which the registry has no format for: its lists hold C flags, Makefile-like
 * variables, Markdown-like comments and CSS-like blocks, so they must not be read as any of
 * those. A text that shows CMake's own commands at least as much as another format's traits is
 * plain text.
 */
const CMAKE: Trait[] = [
  [/^\s*cmake_minimum_required\s*\(/im, 5],
  [
    /^\s*(add_executable|add_library|target_link_libraries|target_include_directories|target_compile_definitions|add_subdirectory|find_package|include_directories|add_definitions|set_target_properties|add_custom_command|add_custom_target|configure_file|check_include_files?|check_function_exists)\s*\(/im,
    3,
  ],
  [/^\s*(endif|endforeach|endfunction|endmacro|endwhile)\s*\(/im, 3],
  [/\$\{CMAKE_\w+\}|\bCMAKE_[A-Z_]+\b/, 2],
  [/^\s*(set|option|message|list|string)\s*\(\s*[\w$]/im, 1],
];

/** Below this score nothing is claimed and the text is plain text. */
const MIN_SCORE = 3;
/** A claim also needs one distinctive trait; minor ones (weight 1) alone are common to prose. */
const DISTINCTIVE = 2;

/** Formats that may quote code in fenced blocks, which must not count as that code's traits. */
const PROSE = new Set(['md', 'rst', 'org', 'tex']);

type Test = (text: string) => boolean;

/**
 * A trait's test. A pattern with a run of characters every match contains is only run on text
 * that contains the run: most patterns are absent from most texts, and looking for a string
 * skips through a head far faster than a pattern anchored at every line start can.
 */
function compile(trait: Trait[0]): Test {
  if (typeof trait === 'function') return trait;
  const needed = requiredLiteral(trait);
  if (needed === undefined) return (text) => trait.test(text);
  // Lower-casing a whole head to look for a lower-case run cost more than it saved (non-ASCII
  // text is lower-cased through ICU); a case-insensitive pattern of the run alone is a fast scan.
  if (trait.flags.includes('i')) {
    const run = new RegExp(needed.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'i');
    return (text) => run.test(text) && trait.test(text);
  }
  return (text) => text.includes(needed) && trait.test(text);
}

const compiled = (traits: Trait[]): Array<[Test, number]> =>
  traits.map(([trait, weight]) => [compile(trait), weight]);

/** CMake's own commands, compiled like TRAITS: a text that shows them as much is plain text. */
const CMAKE_COMPILED = compiled(CMAKE);

/** TRAITS with their tests compiled once, when the module loads. */
const COMPILED: Array<[FormatId, Array<[Test, number]>]> = Object.entries(TRAITS).map(([id, traits]) => [
  id,
  compiled(traits),
]);

function score(traits: Array<[Test, number]>, text: string): number {
  let sum = 0;
  let distinctive = false;
  for (const [test, weight] of traits) {
    if (!test(text)) continue;
    sum += weight;
    if (weight >= DISTINCTIVE) distinctive = true;
  }
  return distinctive ? sum : 0;
}

/**
 * Most texts show what they are in their first lines: a text is first scored on about this many
 * characters of its head (cut at a line end), and only when that shows no clear format on all of
 * it. Over the real-world corpus this gave the same findings as scoring every head whole (one
 * Markdown file that C++ traits further down outscored came out right), for about a fifth less
 * time in a batch.
 */
const FIRST_CHARS = 4096;
/** A score that, reached in the first lines, settles the format without reading on. */
const SETTLED = 6;

/**
 * Most characters of a head that are scored (cut at a line end). Traits count once however often
 * they occur, so what a text is shows in its first pages; past them, a long changelog or word list
 * only gives its scattered lines more chances to look like code (LibRaw's changelog quoting C++
 * read as C++), and scoring the rest of a 64 KB head was half of a batch's detection time. Over
 * the real-world corpus (3,192 files), scoring 8 KB instead of the whole head changed one format,
 * that changelog's, to the text it is; ten texts kept their format at a lower confidence (fewer
 * traits seen: Markdown, SQL, TeX and PostScript 0.7 to 0.6, three generated JavaScript indexes
 * 0.6 to 0.5). 16 KB changed three findings and saved a third as much time.
 */
const SCORED_CHARS = 8192;

/**
 * Where the scored part of a long head ends: at the last line end within SCORED_CHARS, or, when
 * that leaves less than half of them (a minified script is one long line after its licence
 * comment), at the first line end after them.
 */
function scoredEnd(head: string): number {
  const before = head.lastIndexOf('\n', SCORED_CHARS);
  if (before >= SCORED_CHARS / 2) return before;
  const after = head.indexOf('\n', SCORED_CHARS);
  return after < 0 ? head.length : after;
}

/** The prose or code format whose traits the text shows most, if any shows enough. */
export function bestScored(head: string): { id: FormatId; score: number } | undefined {
  const text = head.length > SCORED_CHARS ? head.slice(0, scoredEnd(head)) : head;
  if (text.length <= FIRST_CHARS) return scoreAll(text);
  const end = text.lastIndexOf('\n', FIRST_CHARS);
  const first = scoreAll(text.slice(0, end > 0 ? end : FIRST_CHARS));
  return first && first.score >= SETTLED ? first : scoreAll(text);
}

/**
 * A text that opens with a C-family comment (`/*`, `//`) is a program or a stylesheet: the
 * Markdown its first lines show is its documentation inside that comment (a Rust crate's `/*!`
 * or `//!` module docs, a licence block), and no prose format starts that way.
 */
const OPENS_WITH_CODE_COMMENT = /^\uFEFF?\s*\/[*/]/;

function scoreAll(text: string): { id: FormatId; score: number } | undefined {
  const unfenced = text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  const proseAllowed = !OPENS_WITH_CODE_COMMENT.test(text);
  const scores = new Map<FormatId, number>();
  for (const [id, traits] of COMPILED)
    scores.set(id, PROSE.has(id) ? (proseAllowed ? score(traits, text) : 0) : score(traits, unfenced));
  // TypeScript is JavaScript with types, C++ grew from C, Sass and Less extend CSS: their own
  // traits only count on top.
  for (const [dialect, base] of [
    ['ts', 'js'],
    ['cpp', 'c'],
    ['scss', 'css'],
    ['less', 'css'],
  ] as const) {
    const own = scores.get(dialect)!;
    scores.set(dialect, own >= 3 ? own + scores.get(base)! : 0);
  }
  let best: { id: FormatId; score: number } | undefined;
  for (const [id, s] of scores) if (s >= MIN_SCORE && (!best || s > best.score)) best = { id, score: s };
  if (best && score(CMAKE_COMPILED, unfenced) >= best.score) return undefined;
  return best;
}
