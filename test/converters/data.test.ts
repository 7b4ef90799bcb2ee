import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { XMLParser } from 'fast-xml-parser';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import Papa from 'papaparse';
import { parse as parseToml } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import yazl from 'yazl';
import data, { closeDataPool } from '../../converters/data.js';
import { expectCode, runStep, stepContext, tempDir } from '../helpers/step.js';

const FORMATS = ['json', 'yaml', 'toml', 'xml', 'jsonl', 'csv', 'tsv', 'xlsx'];

const RECORDS = [
  { name: 'Ada', age: 36, city: 'London' },
  { name: 'Grace, "Amazing"', age: 85, city: 'New York' },
];

function sample(name: string, content: string | Buffer): string {
  const path = join(tempDir(), name);
  writeFileSync(path, content);
  return path;
}

/** The source text of RECORDS in each text format. */
const RECORD_SOURCES: Record<string, string> = {
  json: JSON.stringify(RECORDS),
  yaml: '- name: Ada\n  age: 36\n  city: London\n- name: Grace, "Amazing"\n  age: 85\n  city: New York\n',
  toml: 'rows = [\n  { name = "Ada", age = 36, city = "London" },\n  { name = \'Grace, "Amazing"\', age = 85, city = "New York" },\n]\n',
  xml: '<?xml version="1.0"?>\n<rows><row><name>Ada</name><age>36</age><city>London</city></row><row><name>Grace, "Amazing"</name><age>85</age><city>New York</city></row></rows>\n',
  jsonl: RECORDS.map((r) => JSON.stringify(r)).join('\n'),
  csv: 'name,age,city\nAda,36,London\n"Grace, ""Amazing""",85,New York\n',
  tsv: 'name\tage\tcity\nAda\t36\tLondon\nGrace, "Amazing"\t85\tNew York\n',
};

async function xlsxSample(): Promise<string> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('People');
  ws.addRow(['name', 'age', 'city']);
  for (const r of RECORDS) ws.addRow([r.name, r.age, r.city]);
  const path = join(tempDir(), 'in.xlsx');
  await wb.xlsx.writeFile(path);
  return path;
}

/** Descends single-key wrappers (`{ rows: [...] }`, XML's `<rows><row>`) to the list inside. */
function unwrap(value: unknown): Record<string, unknown>[] {
  let v = value;
  while (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1)
    v = Object.values(v)[0];
  if (!Array.isArray(v)) throw new Error(`no list in ${JSON.stringify(value)}`);
  return v;
}

/** Reads an output back into records with independent parsers, to check the content survived. */
async function readRecords(format: string, file: string): Promise<Record<string, unknown>[]> {
  if (format === 'xlsx') {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    const ws = wb.worksheets[0]!;
    expect([1, 2, 3].map((c) => ws.getCell(1, c).value)).toEqual(['name', 'age', 'city']);
    const rows: Record<string, unknown>[] = [];
    for (let r = 2; r <= ws.rowCount; r++) {
      rows.push({ name: ws.getCell(r, 1).value, age: ws.getCell(r, 2).value, city: ws.getCell(r, 3).value });
    }
    return rows;
  }
  const text = readFileSync(file, 'utf8');
  switch (format) {
    case 'json':
      return unwrap(JSON.parse(text));
    case 'yaml':
      return unwrap(parseYaml(text));
    case 'toml':
      return unwrap(parseToml(text));
    case 'jsonl':
      return text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    case 'xml':
      return unwrap(new XMLParser({ ignoreDeclaration: true }).parse(text));
    case 'csv':
    case 'tsv':
      return Papa.parse<Record<string, unknown>>(text, {
        header: true,
        delimiter: format === 'csv' ? ',' : '\t',
        skipEmptyLines: true,
      }).data;
  }
  throw new Error(format);
}

describe('data converter', () => {
  it('declares every pair among its formats with the right family', () => {
    const among = data.edges.filter((e) => FORMATS.includes(e.from) && FORMATS.includes(e.to));
    expect(among).toHaveLength(FORMATS.length * (FORMATS.length - 1));
    expect(data.edges.find((e) => e.from === 'csv' && e.to === 'json')?.family).toBe('spreadsheet');
    expect(data.edges.find((e) => e.from === 'jsonl' && e.to === 'csv')?.family).toBe('data');
    expect(data.edges.find((e) => e.from === 'json' && e.to === 'yaml')?.lossy).toBe(false);
    expect(data.edges.find((e) => e.from === 'xlsx' && e.to === 'csv')?.lossy).toBe(true);
  });

  it('probes with library versions', async () => {
    const p = await data.probe();
    expect(p.ok).toBe(true);
    expect(p.version).toMatch(/yaml \d/);
  });

  const pairs = FORMATS.flatMap((from) =>
    FORMATS.filter((to) => to !== from).map((to) => [from, to] as const),
  );
  it.each(pairs)('converts a list of records from %s to %s', async (from, to) => {
    const input = from === 'xlsx' ? await xlsxSample() : sample(`in.${from}`, RECORD_SOURCES[from]!);
    const { files } = await runStep(data, from, to, input);
    expect(files).toHaveLength(1);
    const rows = await readRecords(to, files[0]!);
    // Text outputs (csv, tsv, xml) carry the age as text; compare it as a number.
    expect(rows.map((r) => ({ ...r, age: Number(r.age) }))).toEqual(RECORDS);
  });

  // LibreOffice (which writes every XLS and ODS the office engine turns into XLSX) and R's
  // openxlsx store the sheets before the shared strings; read straight, exceljs's stream reader
  // gave "[object Object]" for header rows in most runs on a workbook of several sheets.
  it('reads a workbook whose sheets come before its shared strings, every time', async () => {
    const wb = new ExcelJS.Workbook();
    for (let s = 0; s < 6; s++) wb.addWorksheet(`Sheet${s}`).addRow([`S${s}A1`, `S${s}B1`]);
    const parts = Object.entries(unzipSync(new Uint8Array(await wb.xlsx.writeBuffer())));
    const late = (name: string) => name === 'xl/sharedStrings.xml' || name.startsWith('xl/_rels/');
    const zip = new yazl.ZipFile();
    for (const [name, bytes] of parts.sort(([a], [b]) => Number(late(a)) - Number(late(b))))
      if (!name.endsWith('/')) zip.addBuffer(Buffer.from(bytes), name);
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    const input = sample('late-strings.xlsx', Buffer.concat(chunks));
    for (let run = 0; run < 8; run++) {
      const { files } = await runStep(data, 'xlsx', 'csv', input);
      expect(readFileSync(files[0]!, 'utf8').split(/\r?\n/)[0]).toBe('S0A1,S0B1');
    }
  });

  // LibreOffice writes an XLS's boolean cells as TRUE() and FALSE() formulas and keeps a
  // workbook's 1904 date system: as read before, true became 1, false nothing, a date four years early.
  it('keeps boolean formula cells and the dates of a 1904 workbook', async () => {
    const wb = new ExcelJS.Workbook();
    wb.properties.date1904 = true;
    const ws = wb.addWorksheet('types');
    ws.addRow(['flag', 'day']);
    ws.addRow([{ formula: 'TRUE()', result: true }, new Date(Date.UTC(2016, 0, 1))]);
    ws.addRow([{ formula: 'FALSE()', result: false }, new Date(Date.UTC(1999, 11, 31))]);
    // LibreOffice spells the flag "true" where exceljs writes "1"
    const parts = unzipSync(new Uint8Array(await wb.xlsx.writeBuffer()));
    const book = strFromU8(parts['xl/workbook.xml']!).replace('date1904="1"', 'date1904="true"');
    expect(book).toContain('date1904="true"');
    parts['xl/workbook.xml'] = strToU8(book);
    const input = sample('types.xlsx', Buffer.from(zipSync(parts)));
    const { files } = await runStep(data, 'xlsx', 'json', input);
    expect(JSON.parse(readFileSync(files[0]!, 'utf8'))).toEqual([
      { flag: true, day: '2016-01-01T00:00:00.000Z' },
      { flag: false, day: '1999-12-31T00:00:00.000Z' },
    ]);
  });

  it('round-trips a nested tree json -> yaml -> toml -> json', async () => {
    const tree = { title: 'x', owner: { name: 'Tom', tags: ['a', 'b'] }, nums: [1, 2.5], on: true };
    const yaml = await runStep(data, 'json', 'yaml', sample('t.json', JSON.stringify(tree)));
    const toml = await runStep(data, 'yaml', 'toml', yaml.files[0]!);
    const json = await runStep(data, 'toml', 'json', toml.files[0]!);
    expect(JSON.parse(readFileSync(json.files[0]!, 'utf8'))).toEqual(tree);
  });

  it('keeps XML attributes and text through json and back', async () => {
    const xml = '<doc lang="en"><p id="1">Hello &amp; bye</p><p id="2">Two</p></doc>';
    const json = await runStep(data, 'xml', 'json', sample('a.xml', xml));
    const tree = JSON.parse(readFileSync(json.files[0]!, 'utf8'));
    expect(tree.doc['@_lang']).toBe('en');
    expect(tree.doc.p[1]['#text']).toBe('Two');
    const back = await runStep(data, 'json', 'xml', json.files[0]!);
    const text = readFileSync(back.files[0]!, 'utf8');
    expect(text).toContain('<doc lang="en">');
    expect(text).toContain('<p id="2">Two</p>');
  });

  it('flattens nested values into dotted columns, list items by index', async () => {
    const input = sample('n.json', JSON.stringify([{ id: 1, tags: ['a', 'b'], meta: { k: 'v', none: [] } }]));
    const { files } = await runStep(data, 'json', 'csv', input);
    expect(readFileSync(files[0]!, 'utf8')).toBe('id,tags.0,tags.1,meta.k,meta.none\n1,a,b,v,[]\n');
  });

  it('turns an object such as a package.json into one flattened row', async () => {
    const manifest = join(process.cwd(), 'node_modules', 'exceljs', 'package.json');
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    const { files } = await runStep(data, 'json', 'csv', manifest);
    const [row, ...rest] = Papa.parse<Record<string, string>>(readFileSync(files[0]!, 'utf8'), {
      header: true,
      skipEmptyLines: true,
    }).data;
    expect(rest).toHaveLength(0);
    expect(row!.name).toBe('exceljs');
    expect(row!.version).toBe(pkg.version);
    const [dep, range] = Object.entries(pkg.dependencies as Record<string, string>)[0]!;
    expect(row![`dependencies.${dep}`]).toBe(range);
    expect(row!['keywords.0']).toBe(pkg.keywords[0]);
  });

  it('reads newline-delimited JSON saved as .json as a list', async () => {
    const manifests = ['yaml', 'papaparse', 'exceljs'].map((name) =>
      JSON.parse(readFileSync(join(process.cwd(), 'node_modules', name, 'package.json'), 'utf8')),
    );
    const lines = manifests.map((m) =>
      JSON.stringify({ name: m.name, version: m.version, license: m.license }),
    );
    const { files } = await runStep(data, 'json', 'yaml', sample('log.json', `${lines.join('\n')}\n`));
    const list = parseYaml(readFileSync(files[0]!, 'utf8'));
    expect(list).toHaveLength(3);
    expect(list.map((m: { name: string }) => m.name)).toEqual(['yaml', 'papaparse', 'exceljs']);
    expect(list[2].version).toBe(manifests[2].version);
  });

  it('reads concatenated pretty-printed JSON objects as a list, brackets inside strings kept', async () => {
    const records = [
      { id: 1, note: 'a } and a { in text', tags: ['x'] },
      { id: 2, note: 'say "hi" [1]', tags: [] },
      { id: 3, note: 'back\\slash', tags: ['y', 'z'] },
    ];
    const text = records.map((r) => JSON.stringify(r, null, 2)).join('\n');
    const { files } = await runStep(data, 'json', 'yaml', sample('many.json', `${text}\n`));
    expect(parseYaml(readFileSync(files[0]!, 'utf8'))).toEqual(records);
  });

  it("keeps JSON's own error for a broken document that is not several values", async () => {
    await expectCode(
      runStep(data, 'json', 'yaml', sample('bad.json', '{\n  "a": 1,\n}\n{"b": 2}\n')),
      'MALFORMED_DOCUMENT',
    );
  });

  it('reads XML with a DOCTYPE, its DTD and entities ignored', async () => {
    const fixture = join(process.cwd(), 'test', 'fixtures', 'convert', 'packagekit-dbus.xml');
    const { files } = await runStep(data, 'xml', 'json', fixture);
    const tree = JSON.parse(readFileSync(files[0]!, 'utf8'));
    expect(tree.node['@_name']).toBe('/');
    const [root] = tree.node.interface;
    expect(root['@_name']).toBe('org.freedesktop.PackageKit');
    expect(root['doc:doc']['doc:description']['doc:para']).toMatch(/root interface/);
    expect(root.method.length).toBeGreaterThan(3);
  });

  it('reads dates, formula results and rich text from a workbook', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('S');
    ws.addRow(['when', 'double', 'label']);
    ws.addRow([
      new Date(Date.UTC(2024, 0, 2)),
      { formula: '2*21', result: 42 },
      { richText: [{ text: 'ri' }, { text: 'ch' }] },
    ]);
    const input = join(tempDir(), 'd.xlsx');
    await wb.xlsx.writeFile(input);
    const { files } = await runStep(data, 'xlsx', 'json', input);
    expect(JSON.parse(readFileSync(files[0]!, 'utf8'))).toEqual([
      { when: '2024-01-02T00:00:00.000Z', double: 42, label: 'rich' },
    ]);
  });

  describe('a workbook with several sheets', () => {
    async function book(): Promise<string> {
      const wb = new ExcelJS.Workbook();
      wb.addWorksheet('Cover');
      const hidden = wb.addWorksheet('Lookup', { state: 'hidden' });
      hidden.addRow(['code']);
      hidden.addRow(['x1']);
      const sales = wb.addWorksheet('Sales 2024');
      sales.addRow(['region', 'total']);
      sales.addRow(['North', 12]);
      const notes = wb.addWorksheet('2');
      notes.addRow(['note']);
      notes.addRow(['checked']);
      const path = join(tempDir(), 'book.xlsx');
      await wb.xlsx.writeFile(path);
      return path;
    }

    async function toCsv(input: string, options = {}) {
      const ctx = stepContext();
      const edge = data.edges.find((e) => e.from === 'xlsx' && e.to === 'csv')!;
      const { files } = await data.run({ edge, input, outDir: tempDir(), options }, ctx);
      return { text: readFileSync(files[0]!, 'utf8'), log: ctx.logs.join('\n') };
    }

    it('takes the first visible sheet with data, and says which', async () => {
      const { text, log } = await toCsv(await book());
      expect(text).toBe('region,total\nNorth,12\n');
      expect(log).toContain('sheet 3 of 4, "Sales 2024" (the first sheet with data)');
    });

    it('takes the sheet options.sheet names, by name first, else by position', async () => {
      const input = await book();
      expect((await toCsv(input, { sheet: 'Lookup' })).text).toBe('code\nx1\n');
      const byPosition = await toCsv(input, { sheet: '3' });
      expect(byPosition.text).toBe('region,total\nNorth,12\n');
      expect(byPosition.log).toContain('sheet 3 of 4, "Sales 2024" (as asked)');
      // a sheet named "2" wins over the second sheet
      expect((await toCsv(input, { sheet: '2' })).text).toBe('note\nchecked\n');
    });

    it('names the sheets there are when the asked one is missing', async () => {
      await expect(toCsv(await book(), { sheet: 'Budget' })).rejects.toMatchObject({
        code: 'CONVERT_FAILED',
        message: expect.stringMatching(/no sheet "Budget".*1 "Cover", 2 "Lookup", 3 "Sales 2024", 4 "2"/),
      });
    });
  });

  it('keeps a __proto__ column an ordinary key', async () => {
    const { files } = await runStep(data, 'csv', 'json', sample('p.csv', '__proto__,b\nx,1\n'));
    expect(readFileSync(files[0]!, 'utf8')).toContain('"__proto__": "x"');
  });

  it('gives a CSV column one type in JSON: numbers or booleans only when every cell is one', async () => {
    const csv = 'zip,qty,ok,note\n02134,3,true,1\n90210,,false,n/a\n10001,4.5,,2\n';
    const { files } = await runStep(data, 'csv', 'json', sample('types.csv', csv));
    expect(JSON.parse(readFileSync(files[0]!, 'utf8'))).toEqual([
      { zip: '02134', qty: 3, ok: true, note: '1' },
      { zip: '90210', qty: null, ok: false, note: 'n/a' },
      { zip: '10001', qty: 4.5, ok: null, note: '2' },
    ]);
  });

  it('writes a single value as one row of one column, value', async () => {
    const csv = await runStep(data, 'json', 'csv', sample('t.json', '42'));
    expect(readFileSync(csv.files[0]!, 'utf8').trim().split(/\r?\n/)).toEqual(['value', '42']);
    const xlsx = await runStep(data, 'yaml', 'xlsx', sample('t.yaml', 'just text\n'));
    const back = await runStep(data, 'xlsx', 'json', xlsx.files[0]!);
    expect(JSON.parse(readFileSync(back.files[0]!, 'utf8'))).toEqual([{ value: 'just text' }]);
  });

  it('refuses a YAML alias bomb', async () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (const [i, name] of ['b', 'c', 'd', 'e', 'f', 'g'].entries()) {
      const prev = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const input = sample('bomb.yaml', `${levels.join('\n')}\n`);
    await expect(runStep(data, 'yaml', 'json', input)).rejects.toMatchObject({
      code: 'CONVERT_FAILED',
      message: expect.stringMatching(/aliases/),
    });
  });

  it('never expands XML entity declarations (billion laughs, external entities)', async () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>';
    const xxe = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>';
    const outputs: unknown[] = [];
    for (const xml of [laughs, xxe]) {
      const { files } = await runStep(data, 'xml', 'json', sample('e.xml', xml));
      outputs.push(JSON.parse(readFileSync(files[0]!, 'utf8')));
    }
    expect(outputs).toEqual([{ lolz: '&lol2;' }, { r: '&x;' }]);
  });

  it('refuses a DOCTYPE that is never closed', async () => {
    await expect(runStep(data, 'xml', 'json', sample('u.xml', '<!DOCTYPE r [ <r/>'))).rejects.toMatchObject({
      code: 'MALFORMED_DOCUMENT',
    });
  });

  it('leaves entity references in plain XML as inert text', async () => {
    const { files } = await runStep(data, 'xml', 'json', sample('r.xml', '<r><v>&custom;</v></r>'));
    expect(JSON.parse(readFileSync(files[0]!, 'utf8'))).toEqual({ r: { v: '&custom;' } });
  });

  it.each([
    ['json', '{"a": 1,'],
    ['yaml', 'a: [1, 2\nb: }'],
    ['toml', 'a = = 1'],
    ['xml', '<a><b></a>'],
    ['jsonl', '{"a":1}\n{oops}\n'],
    ['csv', 'a,b\n"unclosed,1\n'],
  ])('malformed %s is MALFORMED_DOCUMENT', async (from, text) => {
    const to = from === 'json' ? 'yaml' : 'json';
    await expect(runStep(data, from, to, sample(`bad.${from}`, text))).rejects.toMatchObject({
      code: 'MALFORMED_DOCUMENT',
    });
  });

  it('binary bytes given as a text format are MALFORMED_DOCUMENT', async () => {
    const input = sample('bin.json', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe]));
    await expect(runStep(data, 'json', 'yaml', input)).rejects.toMatchObject({ code: 'MALFORMED_DOCUMENT' });
  });

  it('a file that is not a workbook is MALFORMED_DOCUMENT', async () => {
    await expect(runStep(data, 'xlsx', 'csv', sample('x.xlsx', 'plain text'))).rejects.toMatchObject({
      code: 'MALFORMED_DOCUMENT',
    });
  });

  it('refuses a workbook that unpacks too large', async () => {
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.alloc(210 * 1024 * 1024), 'xl/worksheets/sheet1.xml');
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    const input = sample('bomb.xlsx', Buffer.concat(chunks));
    await expect(runStep(data, 'xlsx', 'csv', input)).rejects.toMatchObject({
      code: 'CONVERT_FAILED',
      message: expect.stringMatching(/unpacks/),
    });
  });

  it('reports progress', async () => {
    const ctx = stepContext();
    const edge = data.edges.find((e) => e.from === 'json' && e.to === 'yaml')!;
    await data.run({ edge, input: sample('p.json', '[1]'), outDir: tempDir(), options: {} }, ctx);
    expect(ctx.progressSeen.at(-1)).toBe(1);
  });
});

describe('data engine worker threads', () => {
  afterAll(async () => {
    delete process.env.FILECONV_ENGINE_OUTPUT_LIMIT;
    await closeDataPool();
  });

  const run = (from: string, to: string, input: string, ctx = stepContext()) => {
    const edge = data.edges.find((e) => e.from === from && e.to === to)!;
    return data.run({ edge, input, outDir: tempDir(), options: {} }, ctx);
  };
  /** About 10 MB of records: seconds of YAML output, far more than the limits below allow. */
  const big = () => {
    const row = JSON.stringify({ id: 1, name: 'item', tags: ['a', 'b'], price: 2.5 });
    return sample('big.json', `[${`${row},`.repeat(150_000)}${row}]`);
  };

  it('stops a conversion at its time limit by ending its worker, and the next one runs', async () => {
    const e = await expectCode(run('json', 'yaml', big(), stepContext(300)), 'CONVERT_FAILED');
    expect(e.message).toMatch(/took longer than .* and was stopped/);
    const ok = await run('csv', 'json', sample('ok.csv', 'a\n1\n'));
    expect(JSON.parse(readFileSync(ok.files[0]!, 'utf8'))).toEqual([{ a: 1 }]);
  });

  it('stops a cancelled conversion at once', async () => {
    const ctx = stepContext();
    const running = run('json', 'yaml', big(), ctx);
    setTimeout(() => ctx.abort(), 100);
    const e = await expectCode(running, 'CONVERT_FAILED');
    expect(e.message).toBe('The conversion was cancelled.');
  });

  it('checks its output against the engine output cap of the main thread', async () => {
    process.env.FILECONV_ENGINE_OUTPUT_LIMIT = '64K';
    const names = Array.from({ length: 50 }, (_, i) => `column_${i}_${'x'.repeat(40)}`);
    const csv = `${names.join(',')}\n${Array.from({ length: 100 }, () => names.map(() => '1').join(',')).join('\n')}\n`;
    const input = sample('wide.csv', csv);
    expect(csv.length).toBeLessThan(64 * 1024);
    await expectCode(run('csv', 'json', input), 'OUTPUT_TOO_LARGE');
    delete process.env.FILECONV_ENGINE_OUTPUT_LIMIT;
    const ok = await run('csv', 'json', input);
    expect(JSON.parse(readFileSync(ok.files[0]!, 'utf8'))).toHaveLength(100);
  });
});
