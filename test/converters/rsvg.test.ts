import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import converter from '../../converters/rsvg.js';
import { expectCode, runStep, tempDir } from '../helpers/step.js';
import { gradientPng, sniff } from './_image-samples.js';

const hits: string[] = [];
const canary = createServer((req, res) => {
  hits.push(req.url ?? '');
  res.end('x');
});
let port = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
  port = (canary.address() as AddressInfo).port;
});
afterAll(() => {
  canary.close();
});

function svgFile(body: string, attrs = 'width="200" height="100"', prologue = ''): string {
  const path = join(tempDir(), 'in.svg');
  writeFileSync(
    path,
    `${prologue}<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" ${attrs}>${body}</svg>`,
  );
  return path;
}

const PLAIN =
  '<rect width="200" height="100" fill="#0000ff"/><text x="10" y="60" font-size="40" fill="white">Hello SVG</text>';

describe('rsvg converter', () => {
  it('probes rsvg-convert', async () => {
    const probe = await converter.probe();
    expect(probe.ok).toBe(true);
    expect(probe.version).toMatch(/^\d+\.\d+/);
  });

  it('renders SVG to PNG at its size, a dpi, or a given width', async () => {
    const svg = svgFile(PLAIN);
    const plain = await runStep(converter, 'svg', 'png', svg);
    expect(sniff(plain.files[0]!)).toBe('png');
    expect(await sharp(plain.files[0]!).metadata()).toMatchObject({ width: 200, height: 100 });
    const dpi = await runStep(converter, 'svg', 'png', svg, { dpi: 192 });
    expect(await sharp(dpi.files[0]!).metadata()).toMatchObject({ width: 400, height: 200 });
    const wide = await runStep(converter, 'svg', 'png', svg, { width: 50 });
    expect(await sharp(wide.files[0]!).metadata()).toMatchObject({ width: 50, height: 25 });
  });

  it('writes vector PDF with the text kept, and PostScript and EPS', async () => {
    const svg = svgFile(PLAIN);
    const pdf = await runStep(converter, 'svg', 'pdf', svg);
    expect(sniff(pdf.files[0]!)).toBe('pdf');
    const text = await execa('pdftotext', [pdf.files[0]!, '-']);
    expect(text.stdout).toContain('Hello SVG');
    const ps = await runStep(converter, 'svg', 'ps', svg);
    expect(sniff(ps.files[0]!)).toBe('ps');
    const eps = await runStep(converter, 'svg', 'eps', svg);
    expect(sniff(eps.files[0]!)).toBe('eps');
  });

  it('renders an SVG pointing at remote and local images without fetching or reading them', async () => {
    const dir = tempDir();
    const secret = await gradientPng(join(dir, 'secret.png'), 10, 10);
    const svg = svgFile(
      `<rect width="200" height="100" fill="#ff0000"/>` +
        `<image href="http://127.0.0.1:${port}/remote.png" width="200" height="100"/>` +
        `<image xlink:href="${secret}" width="200" height="100"/>` +
        `<image href="file://${secret}" width="200" height="100"/>`,
    );
    const { files } = await runStep(converter, 'svg', 'png', svg);
    const { data } = await sharp(files[0]!).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([data[0], data[1], data[2]]).toEqual([255, 0, 0]);
    expect(hits).toEqual([]);
  });

  it('refuses an external entity instead of reading the file it names', async () => {
    const svg = svgFile(
      '<text x="0" y="50">&xxe;</text>',
      'width="200" height="100"',
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
    );
    const e = await expectCode(runStep(converter, 'svg', 'pdf', svg), 'MALFORMED_DOCUMENT');
    expect(e.message).not.toContain('root:');
  });

  it('reports broken SVG as malformed and refuses giant renders up front', async () => {
    const broken = join(tempDir(), 'broken.svg');
    writeFileSync(broken, '<svg xmlns="http://www.w3.org/2000/svg"><rect');
    await expectCode(runStep(converter, 'svg', 'png', broken), 'MALFORMED_DOCUMENT');
    const huge = svgFile('<rect width="10" height="10"/>', 'width="20000" height="20000"');
    const e = await expectCode(runStep(converter, 'svg', 'png', huge), 'OUTPUT_TOO_LARGE');
    expect(e.message).toMatch(/20000 x 20000 pixels/);
    // Vector output of the same file has no pixel surface and is fine.
    const pdf = await runStep(converter, 'svg', 'pdf', huge);
    expect(readFileSync(pdf.files[0]!).subarray(0, 5).toString()).toBe('%PDF-');
  });
});
