import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeDataPool } from '../../converters/data.js';
import type { FormatId } from '../../src/formats/index.js';
import { convertInMemory, runsInMemory } from '../../src/run/in-memory.js';
import { runConversion } from '../../src/run/runner.js';
import type { Progress, RunEvent } from '../../src/run/types.js';
import { tempDir } from '../helpers/step.js';
import { yamlAliasBomb } from '../helpers/yaml-bomb.js';

afterAll(() => closeDataPool());

const SOURCES: Partial<Record<FormatId, string>> = {
  csv: 'name,age,city\nAda,36,London\n"Grace, ""Amazing""",85,New York\n',
  tsv: 'name\tage\tcity\nAda\t36\tLondon\nGrace\t85\tNew York\n',
  json: '[{"name":"Ada","age":36},{"name":"Grace","age":85}]',
  yaml: '- name: Ada\n  age: 36\n- name: Grace\n  age: 85\n',
};

/** Both paths of one conversion, with what each told: events, progress, and the outcome. */
async function bothWays(from: FormatId, to: FormatId, text: string) {
  const dir = tempDir();
  const input = join(dir, `in.${from}`);
  writeFileSync(input, text);
  const told = () => ({ events: [] as RunEvent[], progress: [] as Progress[] });
  const onFiles = told();
  const onBytes = told();
  const files = await runConversion({
    input,
    from,
    to,
    outDir: join(dir, 'out'),
    declaredChecked: true,
    onEvent: (e) => onFiles.events.push(e),
    onProgress: (p) => onFiles.progress.push(p),
  }).then(
    (r) => ({ bytes: readFileSync(r.files[0]!.path), checks: r.files[0]!.checks, name: r.files[0]!.name }),
    (e: unknown) => e,
  );
  const bytes = await convertInMemory({
    input: new Uint8Array(Buffer.from(text)),
    from,
    to,
    declaredChecked: true,
    onEvent: (e) => onBytes.events.push(e),
    onProgress: (p) => onBytes.progress.push(p),
  }).then(
    (r) => ({ bytes: Buffer.from(r.output.bytes), checks: r.output.checks, name: r.output.name }),
    (e: unknown) => e,
  );
  return { files, bytes, onFiles, onBytes };
}

describe('conversions in memory', () => {
  it('are the small text conversions of the data engine, not workbooks or other engines', async () => {
    expect(await runsInMemory({ from: 'csv', to: 'json' })).toBe(true);
    expect(await runsInMemory({ from: 'yaml', to: 'tsv' })).toBe(true);
    expect(await runsInMemory({ from: 'csv', to: 'xlsx' })).toBe(false);
    expect(await runsInMemory({ from: 'xlsx', to: 'csv' })).toBe(false);
    expect(await runsInMemory({ from: 'md', to: 'html' })).toBe(false);
    expect(await runsInMemory({ from: 'csv', to: 'pdf' })).toBe(false);
  });

  it.each([
    ['csv', 'json'],
    ['csv', 'tsv'],
    ['tsv', 'csv'],
    ['json', 'csv'],
    ['yaml', 'xml'],
  ] as [FormatId, FormatId][])(
    '%s to %s gives the bytes, checks, events and progress of the file path',
    async (from, to) => {
      const { files, bytes, onFiles, onBytes } = await bothWays(from, to, SOURCES[from]!);
      expect(bytes).toEqual(files);
      expect(onBytes).toEqual(onFiles);
      // Tables count their rows and words, and a table's words are followed from a table source
      // (a JSON's keys are not words); both paths measured them.
      const table = (f: FormatId) => f === 'csv' || f === 'tsv';
      if (table(to))
        expect((bytes as { checks: object }).checks).toMatchObject({
          rows: 3,
          ...(table(from) ? { words_kept: 1 } : {}),
        });
    },
  );

  it('fails as the file path does, with the same trail', async () => {
    const { files, bytes, onFiles, onBytes } = await bothWays('yaml', 'json', yamlAliasBomb(6));
    expect(bytes).toMatchObject({ code: 'CONVERT_FAILED', message: expect.stringMatching(/aliases/) });
    expect(bytes).toEqual(files);
    expect(onBytes.events.map((e) => e.kind)).toEqual([
      'encoding',
      'step-started',
      'engine-try',
      'engine-failed',
    ]);
    expect(onBytes).toEqual(onFiles);
  });
});
