import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceFormatOf } from '../../src/core/source-format.js';
import type { DetectReport } from '../../src/detect/index.js';
import { detect } from '../../src/detect/index.js';
import { resolveServeConfig } from '../../src/server/config.js';
import { type RunningServer, startServer } from '../../src/server/server.js';
import { get, metaPart, post, ROOT, removeDir, tempDir, waitDone } from '../server/helpers.js';

/** Markdown that opens with an HTML block, as many READMEs do: its bytes alone read as HTML. */
const README =
  '<p align="center">A logo here</p>\n\n# Project\n\nSome **bold** text and a [link](https://example.com).\n';

const report = (declared: string, detected: string, confidence: number): DetectReport => ({
  declared,
  detected,
  match: declared === detected,
  mime: '',
  confidence,
});

describe('the source format rule', () => {
  it.each([
    [report('md', 'html', 0.7), 'md', 'a weak text guess yields to a text extension'],
    [report('txt', 'yaml', 0.6), 'yaml', 'a .txt name never overrides a structure the bytes show'],
    [report('md', 'html', 0.85), 'html', 'a strong marker (a doctype, a root element) wins over the name'],
    [report('docx', 'txt', 0.5), 'txt', 'a binary extension on text bytes does not win'],
    [report('pdf', 'png', 1), 'png', 'a signature wins'],
    [report('csv', 'bin', 0.1), 'csv', 'unknown bytes take the name'],
    [report('bin', 'bin', 0.1), undefined, 'nothing known either way'],
  ])('%o -> %s (%s)', (r, expected, _why) => {
    expect(sourceFormatOf(r)).toBe(expected);
  });

  describe('through the CLI and a started server', () => {
    let dir: string;
    let server: RunningServer;
    beforeAll(async () => {
      dir = tempDir('fileconv-source-');
      await writeFile(join(dir, 'README.md'), README);
      const config = resolveServeConfig(
        { host: '127.0.0.1', port: '0', rateLimit: '0', dataDir: join(dir, 'data') },
        {},
      );
      // The URL intake is the only stand-in: it "downloads" the README, so no network is needed.
      server = await startServer(config, {
        urlIntake: {
          async fetch(_url, destDir) {
            await mkdir(destDir, { recursive: true });
            await copyFile(join(dir, 'README.md'), join(destDir, 'README.md'));
            return { path: join(destDir, 'README.md'), filename: 'README.md', contentType: 'text/plain' };
          },
        },
        log: () => {},
      });
    });
    afterAll(async () => {
      await server?.shutdown();
      removeDir(dir);
    });

    it('detects the bytes as HTML with less than strong confidence', async () => {
      const r = await detect(join(dir, 'README.md'));
      expect(r).toMatchObject({ declared: 'md', detected: 'html' });
      expect(r.confidence).toBeLessThan(0.85);
    });

    it('the CLI converts the README as Markdown', async () => {
      const out = join(dir, 'cli');
      const res = await execa(
        'node',
        [
          join(ROOT, 'bin', 'fileconv'),
          'convert',
          join(dir, 'README.md'),
          '--to',
          'html',
          '-o',
          out,
          '--json',
        ],
        { reject: false, stdin: 'ignore' },
      );
      const line = JSON.parse(res.stdout.trim().split('\n').at(-1)!);
      expect(line).toMatchObject({ ok: true, key: 'md-html' });
      // Markdown rendered: the heading is an element, not a literal `#`.
      const html = await readFile(line.outputs[0], 'utf8');
      expect(html).toMatch(/<h1[^>]*>Project<\/h1>/);
      expect(html).toContain('<strong>bold</strong>');
    });

    it('the server plans a source_url README as Markdown too', async () => {
      const res = await post(`${server.url}/api/public/convert`, [
        metaPart({ to: 'html', source_url: 'https://example.com/README.md' }),
      ]);
      expect(res.status).toBe(202);
      const done = await waitDone(server.url, res.json.request_id);
      expect(done).toMatchObject({ status: 'succeeded', conversion: 'md-html' });
      const link = await get(done.artifacts[0].download);
      const html = link.status >= 300 && link.status < 400 ? await get(String(link.headers.location)) : link;
      expect(html.text).toMatch(/<h1[^>]*>Project<\/h1>/);
    });
  });
});
