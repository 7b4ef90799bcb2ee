import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConverters } from '../../src/engine/registry.js';
import { findBinary } from '../../src/run/binary.js';
import { gradientPng, textPdf } from '../converters/_image-samples.js';
import { call, type ToolAnswer } from './helpers.js';

const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));

const root = mkdtempSync(join(tmpdir(), 'fileconv-mcp-root-'));
const outside = mkdtempSync(join(tmpdir(), 'fileconv-mcp-outside-'));
let client: Client;
let stderr = '';

beforeAll(async () => {
  writeFileSync(join(root, 'items.csv'), 'name,qty\napple,3\npear,5\n');
  await gradientPng(join(root, 'picture.png'));
  writeFileSync(join(outside, 'secret.csv'), 'a,b\n1,2\n');
  symlinkSync(join(outside, 'secret.csv'), join(root, 'link.csv'));
  symlinkSync(outside, join(root, 'away'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--root', root],
    cwd: outside,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  client = new Client({ name: 'fileconv-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  for (const dir of [root, outside]) rmSync(dir, { recursive: true, force: true });
});

const tool = (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => call(client, name, args);

describe('fileconv mcp over stdio', () => {
  it('initializes and lists the tools, the convert options made from what converters declare', async () => {
    expect(client.getServerVersion()?.name).toBe('fileconv');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['catalog', 'convert', 'detect']);
    const convert = tools.find((t) => t.name === 'convert')!;
    const options = (convert.inputSchema.properties?.options ?? {}) as {
      properties: Record<string, { description?: string }>;
    };
    // Every option any converter declares is in the schema, with its declared description.
    for (const converter of await loadConverters()) {
      for (const [name, spec] of Object.entries(converter.options ?? {})) {
        expect(options.properties[name]?.description, name).toBe(spec.description);
      }
    }
    expect(Object.keys(options.properties)).toEqual(expect.arrayContaining(['pages', 'rotate', 'password']));
  });

  it('detects a real PNG by its content, whatever its name says', async () => {
    const png = await tool('detect', { path: 'picture.png' });
    expect(png.body).toMatchObject({ path: join(root, 'picture.png'), detected: 'png', match: true });
    const declared = await tool('detect', { path: join(root, 'picture.png'), declared: 'jpeg' });
    expect(declared.body).toMatchObject({ declared: 'jpg', detected: 'png', match: false });
  });

  it('converts csv to json next to the input, and never over an existing file', async () => {
    const first = await tool('convert', { path: 'items.csv', to: 'json' });
    expect(first.isError).toBe(false);
    expect(first.body).toEqual({
      key: 'csv-json',
      from: 'csv',
      to: 'json',
      outputs: [join(root, 'items.json')],
    });
    expect(JSON.parse(readFileSync(join(root, 'items.json'), 'utf8'))).toEqual([
      { name: 'apple', qty: 3 },
      { name: 'pear', qty: 5 },
    ]);
    const again = await tool('convert', { path: 'items.csv', conversion: 'csv-json', output_dir: '.' });
    expect(again.body.outputs).toEqual([join(root, 'items_2.json')]);
  });

  it('refuses bad arguments with the API error codes', async () => {
    const unknown = await tool('convert', { path: 'items.csv', to: 'json', options: { no_such: 1 } });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/no_such/);
    const misapplied = await tool('convert', { path: 'items.csv', to: 'json', options: { rotate: 90 } });
    expect(misapplied.body.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(misapplied.body.error.message).toMatch(/rotate does not apply/);
    const pair = await tool('convert', { path: 'picture.png', to: 'csv' });
    expect(pair.body.error.code).toBe('UNSUPPORTED_CONVERSION');
  });

  it('refuses paths outside the roots: absolute, by .., and through symbolic links', async () => {
    const refusals = await Promise.all([
      tool('detect', { path: join(outside, 'secret.csv') }),
      tool('detect', { path: '../x/../../etc/passwd' }),
      tool('convert', { path: 'link.csv', to: 'json' }),
      tool('convert', { path: 'away/secret.csv', to: 'json' }),
      tool('convert', { path: 'items.csv', to: 'json', output_dir: 'away/out' }),
      tool('convert', { path: 'items.csv', to: 'json', output_dir: outside }),
    ]);
    for (const r of refusals) {
      expect(r.isError).toBe(true);
      expect(r.body.error.code).toBe('PATH_NOT_ALLOWED');
    }
    expect(existsSync(join(outside, 'secret.json'))).toBe(false);
    expect(existsSync(join(outside, 'out'))).toBe(false);
    const missing = await tool('detect', { path: 'nothing.png' });
    expect(missing.body.error.code).toBe('FILE_NOT_FOUND');
  });

  it('lists the catalog, filtered', async () => {
    const csv = await tool('catalog', { from: 'csv', to: 'json' });
    expect(csv.body).toMatchObject({ count: 1, conversions: [{ key: 'csv-json', family: 'spreadsheet' }] });
    const few = await tool('catalog', { limit: 3 });
    expect(few.body.conversions).toHaveLength(3);
    expect(few.body.truncated).toBe(true);
  });

  it.skipIf(!findBinary(['qpdf']) || !findBinary(['gs']))(
    'merges PDFs into one, and operates on a PDF with an option (needs qpdf and Ghostscript)',
    { timeout: 60_000 },
    async () => {
      mkdirSync(join(root, 'docs'));
      await textPdf(join(root, 'docs'), ['One', 'Two'], 'a.pdf');
      await textPdf(join(root, 'docs'), ['Three'], 'b.pdf');
      const merged = await tool('convert', { paths: ['docs/a.pdf', 'docs/b.pdf'], output_dir: 'merged' });
      expect(merged.body).toMatchObject({ to: 'pdf', outputs: [join(root, 'merged', 'a-merged.pdf')] });
      expect(pdfPages(merged.body.outputs[0])).toBe(3);
      const second = await tool('convert', { path: 'docs/a.pdf', to: 'pdf', options: { pages: '2' } });
      expect(second.body.outputs).toEqual([join(root, 'docs', 'a_2.pdf')]);
      expect(pdfPages(second.body.outputs[0])).toBe(1);
    },
  );

  it.skipIf(!findBinary(['qpdf']) || !findBinary(['gs']))(
    'converts with a recipe: its JSON file inside a root, or the recipe itself (needs qpdf and Ghostscript)',
    { timeout: 90_000 },
    async () => {
      mkdirSync(join(root, 'recipes'));
      mkdirSync(join(root, 'scans'));
      await textPdf(join(root, 'scans'), ['One', 'Two', 'Three'], 'c.pdf');
      writeFileSync(
        join(root, 'recipes', 'last-turned.json'),
        JSON.stringify({ name: 'last-turned', to: 'pdf', options: { pages: '3', rotate: 180 } }),
      );
      const byFile = await tool('convert', { path: 'scans/c.pdf', recipe: 'recipes/last-turned.json' });
      expect(byFile.body).toMatchObject({ key: 'pdf-pdf', outputs: [join(root, 'scans', 'c_2.pdf')] });
      expect(pdfPages(byFile.body.outputs[0])).toBe(1);
      expect(pageRotation(byFile.body.outputs[0])).toBe(180);

      // The recipe inline, a password for the output added by the call, two files merged to A4.
      await gradientPng(join(root, 'scans', 'tall.png'), 30, 60);
      const inline = await tool('convert', {
        paths: ['scans/tall.png', 'scans/c.pdf'],
        recipe: { name: 'to-a4', to: 'pdf', merge: true, options: { paper: 'A4' } },
        options: { user_password: 's3cret' },
      });
      expect(inline.isError, inline.text).toBe(false);
      const merged = inline.body.outputs[0];
      expect(inline.body).toMatchObject({
        key: 'merge-pdf',
        outputs: [join(root, 'scans', 'tall-merged.pdf')],
      });
      const info = execFileSync('pdfinfo', ['-upw', 's3cret', '-f', '1', '-l', '4', merged], {
        encoding: 'utf8',
      });
      expect(info).toMatch(/^Encrypted:\s+yes/m);
      expect(info).toMatch(/^Pages:\s+4$/m);
      expect(info).toMatch(/^Page\s+1 size:\s+595\.\d+ x 841\.\d+ pts/m);

      const refusals = await Promise.all([
        tool('convert', { path: 'scans/c.pdf', recipe: { name: 'x', to: 'pdf', options: { rotate: 45 } } }),
        tool('convert', {
          path: 'scans/c.pdf',
          recipe: { name: 'x', to: 'pdf', options: { password: 'p' } },
        }),
        tool('convert', { path: 'scans/c.pdf', recipe: 'recipes/none.json' }),
        tool('convert', { path: 'scans/c.pdf', recipe: join(outside, 'secret.csv') }),
        tool('convert', { path: 'scans/c.pdf', to: 'png', recipe: 'recipes/last-turned.json' }),
        tool('convert', { paths: ['scans/c.pdf', 'scans/c.pdf'], recipe: 'recipes/last-turned.json' }),
      ]);
      expect(refusals.map((r) => [r.body.error.code, r.body.error.option])).toEqual([
        ['INVALID_REQUEST', 'rotate'],
        ['INVALID_REQUEST', 'password'],
        ['FILE_NOT_FOUND', undefined],
        ['PATH_NOT_ALLOWED', undefined],
        ['INVALID_REQUEST', undefined],
        ['INVALID_REQUEST', undefined],
      ]);
      expect(refusals[0]!.body.error.message).toBe('recipe option rotate must be one of 90, 180, 270');
      expect(refusals[2]!.body.error.message).toBe('recipe: recipes/none.json does not exist.');
      expect(refusals[5]!.body.error.message).toMatch(/^The recipe last-turned converts one file at a time/);
    },
  );

  it('keeps stdout for the protocol', () => {
    expect(stderr).not.toMatch(/INTERNAL_ERROR|failed/);
  });
});

/** The first page's rotation, as pdfinfo reads it. */
function pageRotation(path: string): number {
  const info = execFileSync('pdfinfo', ['-f', '1', '-l', '1', path], { encoding: 'utf8' });
  return Number(/^Page\s+1 rot:\s+(\d+)/m.exec(info)?.[1]);
}

function pdfPages(path: string): number {
  return Number(execFileSync('qpdf', ['--show-npages', path], { encoding: 'utf8' }).trim());
}
