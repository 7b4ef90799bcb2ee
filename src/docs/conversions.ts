import { z } from 'zod';
import { type Converter, edgeOptionNames } from '../engine/contract.js';
import type { OptionSpec } from '../engine/option-kit.js';
import { getFormat } from '../formats/index.js';
import { buildCatalog } from '../plan/graph.js';
import { holdersText, KIND_RULES } from '../plan/meaning.js';
import { declaredOptions } from '../plan/options.js';
import type { Plan } from '../plan/types.js';

function table(head: string[], rows: string[][]): string[] {
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

/** The values an option takes, read from its schema's JSON Schema (the same one the OpenAPI document shows). */
function specText(spec: OptionSpec): string {
  const json = z.toJSONSchema(spec.schema, { io: 'output' }) as {
    type?: string;
    enum?: unknown[];
    anyOf?: { const?: unknown }[];
    minimum?: number;
    maximum?: number;
    examples?: unknown[];
  };
  const values = json.enum ?? json.anyOf?.map((a) => a.const);
  if (values) return values.map((v) => `\`${v}\``).join(', ');
  if (json.type === 'boolean') return '`true` or `false`';
  if (json.type === 'integer' || json.type === 'number')
    return `${json.type} ${json.minimum} to ${json.maximum}`;
  return `like \`${json.examples?.[0]}\``;
}

function engineSection(c: Converter): string[] {
  const rows = c.edges.map((e) => [
    e.from,
    e.to,
    e.family,
    e.lossy ? 'yes' : 'no',
    String(e.cost),
    e.multiOutput ? (getFormat(e.from)?.family === 'data' ? 'one file per table' : 'one file per page') : '',
  ]);
  return [
    `### ${c.name}`,
    '',
    c.description,
    '',
    `Debian packages: ${c.packages.length > 0 ? c.packages.map((p) => `\`${p}\``).join(', ') : 'none (runs in-process)'}.`,
    ...(c.concurrency || c.timeoutMs
      ? [
          '',
          [
            c.concurrency ? `At most ${c.concurrency} at once.` : '',
            c.timeoutMs ? `Time limit ${Math.round(c.timeoutMs / 1000)} s a step.` : '',
          ]
            .filter(Boolean)
            .join(' '),
        ]
      : []),
    '',
    ...table(['from', 'to', 'family', 'lossy', 'cost', 'output'], rows),
    '',
  ];
}

/** The engines that honour each option, and on which of their edges when not all. */
function honouredBy(name: string, converters: Converter[]): string {
  return converters
    .filter((c) => c.options && Object.hasOwn(c.options, name))
    .map((c) => {
      const some = c.edges.filter((e) => edgeOptionNames(c, e).includes(name));
      if (some.length === c.edges.length) return c.name;
      if (some.length === 0 && c.merge?.options.includes(name)) return `${c.name} (merging several inputs)`;
      const targets = [...new Set(some.map((e) => e.to))].sort();
      return `${c.name} (to ${targets.join(', ')})`;
    })
    .join(', ');
}

function optionSection(converters: Converter[]): string[] {
  const specs = [...declaredOptions(converters)].sort(([a], [b]) => a.localeCompare(b));
  return [
    '## Options',
    '',
    'Give options as `-O key=value` (CLI) or in the `options` object (API). Each engine declares',
    'the options it honours (`options` in its file in converters/); an option that no step of a',
    "conversion honours is refused, and the request's timeline says which step took which option.",
    '',
    ...table(
      ['option', 'values', 'honoured by', 'what it does'],
      specs.map(([name, spec]) => [
        `\`${name}\``,
        specText(spec),
        honouredBy(name, converters),
        spec.description,
      ]),
    ),
    '',
  ];
}

function dataSection(): string[] {
  return [
    '## Data to tables',
    '',
    'JSON, YAML, TOML, XML and JSON Lines become CSV, TSV or XLSX as follows:',
    '',
    '- A list gives one row per item; a list inside single-key wrappers (`{ "rows": [...] }`,',
    '  `<rows><row>`) is found there. An object that is not such a wrapper (a `package.json`, an',
    '  OpenAPI file) gives one row.',
    '- Nested values are flattened into one column per leaf, named by its path with dots; list items',
    '  by their index: `{"owner": {"name": "Tom"}, "tags": ["a", "b"]}` gives the columns',
    '  `owner.name`, `tags.0`, `tags.1`. Empty lists and objects are written as `[]` and `{}`.',
    '- A lone scalar (`42`, `"x"`, `null`) gives one row with one column, `value`, as a scalar',
    '  item of a list does (and as TOML writes it: `value = 42`).',
    '',
    'Newline-delimited JSON saved as `.json` (one value a line) is read as JSON Lines: a list with one',
    'item per line, so `json` to `yaml` gives one YAML document holding a list, the same as `jsonl`',
    'to `yaml`. One document keeps the order and is read back by every YAML reader; a stream of',
    'documents is not.',
    '',
    'XML is read without its DOCTYPE: a DTD is never fetched, read or applied, so references to',
    'entities it declares stay as text (`&version;`); the predefined, numeric and HTML named',
    'references are decoded.',
    '',
    '### Databases',
    '',
    'A SQLite database becomes its tables: `sqlite` to `xlsx` is one workbook with a sheet per table',
    '(in table-name order; a name Excel refuses has its `: \\ / ? * [ ]` replaced and is cut to 31',
    'characters), `sqlite` to `csv` or `json` one file per table, numbered in table-name order',
    '(`csv-1`, `csv-2` and a ZIP of them; one table gives one file). The timeline names the table',
    'of each number and its rows. Only ordinary tables are read: views, triggers, indexes and virtual',
    'tables (whose modules could be anything) are not, and no statement stored in the file runs. The',
    'file is opened read-only (`query_only`, `trusted_schema` off; extensions cannot load). Whole',
    'numbers past 2^53 are written as text, blobs as base64. Limits: 200 MB, 200 tables,',
    '1,048,575 rows across the tables (an Excel sheet); a damaged file is `MALFORMED_DOCUMENT`.',
    '',
    'Not yet: Apache Parquet and Arrow (Feather) files are detected but not converted: no reader of',
    'either format is among the dependencies, and adding one (a Parquet reader, the Arrow library)',
    'is a dependency to review on its own.',
    '',
    '## Tables to data',
    '',
    'CSV and TSV become JSON, YAML, TOML, XML or JSON Lines one record per row, keyed by the header',
    'row, with one type per column: a column is numbers only when every non-empty cell is a number',
    'written exactly (`42`, `-1.5`; not `007` or `1e3`), booleans only when every non-empty cell is',
    '`true` or `false`, and otherwise text, every cell as written (a ZIP code column of `02134` and',
    '`90210` stays text, and so does a column of `1` and `n/a`). In a number or boolean column an',
    'empty cell is `null`; in a text column it is `""`.',
    '',
  ];
}

function ruleSection(): string[] {
  return [
    '## Which chains are listed',
    '',
    'A chain of steps is listed only where every step keeps the meaning of the content. The planner',
    'follows what the content is (its kind) from the source format through each step: a step either',
    'keeps the kind, turns it into another (pages rendered to a picture, OCR, speech), or has no',
    'sensible result, and then the chain is not offered. Each kind may only be written to the formats',
    'that can hold it. The rules live in `src/plan/meaning.ts`; the excluded classes and the reason',
    'for each are in the last column.',
    '',
    ...table(
      ['kind', 'what it is', 'written as', 'turns into', 'not listed, and why'],
      KIND_RULES.map((r) => [
        `\`${r.kind}\``,
        r.what,
        holdersText(r),
        Object.entries(r.turns)
          .map(
            ([action, turn]) => `${action}: ${turn.becomes}${turn.firstStepOnly ? ' (first step only)' : ''}`,
          )
          .join('; ') || 'nothing',
        r.excludes,
      ]),
    ),
    '',
    'Step actions: `words` writes a document, text, data, spreadsheet, presentation or ebook format;',
    '`image`, `audio` and `video` write that family; `ocr` reads text from a picture; `speak` and',
    '`transcribe` are speech synthesis and speech recognition; `extract` takes the pictures out of a',
    "PDF as they are stored; `inspect` writes a report of the file (a PDF's pages, metadata and signatures).",
    '',
  ];
}

function catalogSection(plans: Plan[]): string[] {
  const counts = new Map<string, number>();
  for (const p of plans) counts.set(p.family, (counts.get(p.family) ?? 0) + 1);
  const rows = plans.map((p) => [
    p.key,
    p.family,
    p.lossy ? 'yes' : 'no',
    p.steps.map((s) => `${s.engines.join('/')} (${s.from}→${s.to})`).join(', then '),
  ]);
  return [
    '## Catalog with every engine installed',
    '',
    `${plans.length} conversions. A conversion takes at most three steps: lossless paths are preferred,`,
    'then the cheapest, then the shortest. Where several engines offer a step, the later ones are',
    'fallbacks. `fileconv catalog` lists what the engines installed on a machine allow.',
    '',
    ...table(
      ['family', 'conversions'],
      [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([f, n]) => [f, String(n)]),
    ),
    '',
    ...table(['key', 'family', 'lossy', 'steps'], rows),
    '',
  ];
}

/** docs/conversions.md, from the converters' declared edges (independent of what is installed). */
export function renderConversionsDoc(converters: Converter[]): string {
  const edges = converters.reduce((n, c) => n + c.edges.length, 0);
  const lines = [
    '# Conversions',
    '',
    '<!-- Generated by `npm run docs` from converters/; do not edit by hand. -->',
    '',
    `${converters.length} engines declare ${edges} conversion steps. Each engine is found at run time;`,
    '`fileconv doctor` shows which are installed and how to install the others.',
    '',
    '## Engines',
    '',
    ...converters.flatMap(engineSection),
    ...optionSection(converters),
    ...dataSection(),
    ...ruleSection(),
    ...catalogSection(buildCatalog(converters)),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}
