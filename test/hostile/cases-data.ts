import { yamlAliasBomb } from '../helpers/yaml-bomb.js';
import { xlsx, zip } from './build.js';
import { billionLaughsEntities } from './cases-images.js';
import type { HostileCase } from './harness.js';

/** The in-process data converter against parser bombs and archive bombs. */
export const dataCases: HostileCase[] = [
  {
    name: 'data: XML billion laughs',
    attack: 'nested internal entities expanding to gigabytes',
    from: 'xml',
    to: 'json',
    make: () => `<?xml version="1.0"?><!DOCTYPE r [${billionLaughsEntities()}]><r>&l9;</r>`,
    // the DTD is dropped unread: the reference stays as text
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'], output: true },
  },
  {
    name: 'data: XML external entity (XXE)',
    attack: 'a SYSTEM entity on the secret file and a parameter entity on the canary URL',
    from: 'xml',
    to: 'yaml',
    make: (c) =>
      `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file://${c.files.txt}"><!ENTITY % p SYSTEM "${c.url}dtd">%p;]><r>&x;</r>`,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'], output: true },
  },
  {
    name: 'data: YAML alias bomb',
    attack: 'anchors referencing anchors nine levels deep (a billion nodes)',
    from: 'yaml',
    to: 'json',
    make: () => yamlAliasBomb(9),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'data: JSON nested 100000 levels',
    attack: 'deep nesting that overflows recursive parsers and serialisers',
    from: 'json',
    to: 'yaml',
    make: () => `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED', 'INPUT_TOO_LARGE'] },
  },
  {
    name: 'data: TOML nested 100000 levels',
    attack: 'deeply nested inline arrays in TOML',
    from: 'toml',
    to: 'json',
    make: () => `a = ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`,
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED', 'INPUT_TOO_LARGE'], output: true },
  },
  {
    name: 'data: huge TOML',
    attack: 'a TOML file over the input size cap (60 MB of keys)',
    from: 'toml',
    to: 'yaml',
    make: () => {
      const line = 'k0000000 = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"\n';
      const parts: string[] = [];
      for (let i = 0; i < Math.ceil((60 * 1024 * 1024) / line.length); i++) {
        parts.push(`k${String(i).padStart(7, '0')}${line.slice(8)}`);
      }
      return parts.join('');
    },
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'data: xlsx zip bomb (ratio and total size)',
    attack: 'a workbook whose sheet inflates from a few hundred KB to 300 MB',
    from: 'xlsx',
    to: 'json',
    engine: 'data',
    make: () => xlsx({ A1: 'bomb' }, { 'xl/sharedStrings.xml': ' '.repeat(300 * 1024 * 1024) }),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'data: xlsx with 20000 entries',
    attack: 'a many-entry workbook archive',
    from: 'xlsx',
    to: 'csv',
    engine: 'data',
    make: async () => {
      const extra: Record<string, string> = {};
      for (let i = 0; i < 20_000; i++) extra[`xl/media/e${i}.xml`] = '<x/>';
      return xlsx({ A1: 'many' }, extra);
    },
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'], output: true },
    knownGap: {
      check: 'temp-left',
      reason:
        "exceljs's streaming reader parks unknown entries in the process temp folder and may leave one behind",
    },
  },
  {
    name: 'data: truncated xlsx',
    attack: 'a workbook cut in the middle of its zip',
    from: 'xlsx',
    to: 'json',
    engine: 'data',
    make: async () => (await zip({ 'a.xml': 'x'.repeat(5000) })).subarray(0, 100),
    allowed: { codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'data: CSV formula injection to xlsx',
    attack: 'cells starting with = + - @ that a spreadsheet would run (kept as text, never fetched)',
    from: 'csv',
    to: 'xlsx',
    engine: 'data',
    make: (c) => `a,b\n=WEBSERVICE("${c.url}csv"),@SUM(1)\n+1,-1\n`,
    allowed: { output: true },
  },
];
