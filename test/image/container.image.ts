import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { filePart, get, type Json, makeDocx, metaPart, post, waitDone } from '../server/helpers.js';
import { buildImage, ensureBaseImage, ensureHostTools, podman, ROOT } from './podman.js';

/**
 * The Dockerfile built and run as a user would (`docker build`, `docker run -v data:/data`),
 * with podman and runc: conversions through the HTTP API, outputs checked with poppler and
 * ImageMagick on the host, the data kept across a restart, an unprivileged user, a stop on SIGTERM.
 */
const TAG = 'localhost/fileconv:test';
const log = (m: string) => console.log(`image: ${m}`);
/** The compose example's API service: its stop grace period is what `podman stop` waits here. */
const composeApi = (
  parseYaml(readFileSync(join(ROOT, 'deploy', 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: { api: { stop_grace_period: string } };
  }
).services.api;
const stopSeconds = Number(/^(\d+)s$/.exec(composeApi.stop_grace_period)?.[1]);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('container image', () => {
  const name = `fileconv-test-${randomUUID().slice(0, 8)}`;
  const volume = `${name}-data`;
  const work = mkdtempSync(join(tmpdir(), 'fileconv-image-'));
  let base = '';
  let buildSeconds = 0;
  const submitted: Record<string, string> = {};

  /** Starts the container (made once, started again after), waits for /readyz; returns the seconds to ready. */
  async function startContainer(create: boolean): Promise<number> {
    const start = Date.now();
    if (create) {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      podman([
        'run',
        '-d',
        '--runtime',
        'runc',
        '--network=host',
        // podman masks parts of /proc by default, and the kernel then refuses bubblewrap a /proc
        // of the engines' own; docs/self-hosting.md gives this option for that.
        '--security-opt',
        'unmask=/proc/*',
        '--name',
        name,
        '-v',
        `${volume}:/data`,
        '-e',
        `FILECONV_PORT=${port}`,
        // These tests make many writes from one address.
        '-e',
        'FILECONV_RATE_LIMIT=0',
        TAG,
      ]);
    } else podman(['start', name]);
    for (;;) {
      const ready = await get(`${base}/readyz`).catch(() => undefined);
      if (ready?.status === 200) return (Date.now() - start) / 1000;
      if (Date.now() - start > 180_000)
        throw new Error(`not ready after 180 s: ${podman(['logs', name], { allowFail: true })}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Downloads a finished request's first artifact to the work folder. */
  async function download(done: Json, file: string): Promise<string> {
    let res = await request(done.artifacts[0].download);
    if (res.statusCode >= 300 && res.statusCode < 400) {
      await res.body.dump();
      res = await request(String(res.headers.location));
    }
    expect(res.statusCode).toBe(200);
    const path = join(work, file);
    writeFileSync(path, Buffer.from(await res.body.arrayBuffer()));
    return path;
  }

  beforeAll(async () => {
    await ensureHostTools(log);
    ensureBaseImage(log);
    buildSeconds = buildImage(TAG, log);
    const size = Number(podman(['image', 'inspect', TAG, '--format', '{{.Size}}']).trim());
    const ready = await startContainer(true);
    log(
      `built in ${buildSeconds.toFixed(0)} s; ${(size / 1e9).toFixed(2)} GB; ready ${ready.toFixed(1)} s after start`,
    );
  }, 3 * 3600_000);

  afterAll(() => {
    podman(['rm', '-f', '-t', '0', name], { allowFail: true });
    podman(['volume', 'rm', '-f', volume], { allowFail: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('runs as an unprivileged user, with a health check on /readyz', () => {
    expect(podman(['exec', name, 'id', '-u']).trim()).not.toBe('0');
    expect(podman(['image', 'inspect', TAG, '--format', '{{.Config.User}}']).trim()).toBe('fileconv');
    expect(podman(['image', 'inspect', TAG, '--format', '{{json .Config.Healthcheck}}'])).toContain(
      '/readyz',
    );
    // The check itself, as the engine runs it.
    podman(['healthcheck', 'run', name]);
  });

  it('converts a DOCX and an HTML page to PDF and a PNG to WebP through the HTTP API', async () => {
    const docx = await makeDocx(work, 120);
    const html = `<!doctype html><html><head><title>t</title></head><body>${'<h1>Heading</h1><p>Some words.</p>'.repeat(60)}</body></html>`;
    execFileSync('convert', ['-size', '320x200', 'gradient:blue-yellow', join(work, 'in.png')]);
    const png = execFileSync('cat', [join(work, 'in.png')]);
    const inputs: [string, string, Buffer | string][] = [
      ['docx-pdf', 'report.docx', docx],
      ['html-pdf', 'page.html', html],
      ['png-webp', 'picture.png', png],
    ];
    for (const [conversion, file, bytes] of inputs) {
      const res = await post(`${base}/api/public/convert`, [metaPart({ conversion }), filePart(file, bytes)]);
      expect(res.status, res.text).toBe(202);
      submitted[conversion] = res.json.request_id;
    }
    const done = Object.fromEntries(
      await Promise.all(
        Object.entries(submitted).map(async ([k, id]) => [k, await waitDone(base, id, 300_000)] as const),
      ),
    );
    for (const d of Object.values(done)) expect(d.status, JSON.stringify(d)).toBe('succeeded');
    const docxPdf = execFileSync('pdfinfo', [await download(done['docx-pdf'], 'docx.pdf')]).toString();
    expect(Number(/Pages:\s+(\d+)/.exec(docxPdf)?.[1])).toBeGreaterThan(1);
    const htmlPdf = execFileSync('pdfinfo', [await download(done['html-pdf'], 'html.pdf')]).toString();
    expect(Number(/Pages:\s+(\d+)/.exec(htmlPdf)?.[1])).toBeGreaterThanOrEqual(1);
    const webp = await download(done['png-webp'], 'out.webp');
    expect(execFileSync('identify', ['-format', '%m %wx%h', webp]).toString()).toBe('WEBP 320x200');
  }, 600_000);

  it('confines engines in their own mount namespace inside the container, and names what it lacks', () => {
    const doctor = podman(['exec', name, 'fileconv', 'doctor'], { allowFail: true });
    const lines = doctor.split('\n').filter((l) => /engine (isolation|confinement)|^\s{8}\S/.test(l));
    log(`doctor in the container:\n${lines.join('\n')}`);
    // With /proc unmasked, bubblewrap makes its namespaces as the unprivileged user: engines see
    // only their job folder, not /data, and a /proc of their own processes.
    expect(doctor).toMatch(
      /engine confinement: own mount namespace \(job folder only\), as the server's user/,
    );
    // The layer the image does not have (network namespaces need root) is named, as the docs say.
    expect(doctor).toMatch(/unshare --net is not permitted \(needs root\): engines keep network access/);
    // With podman's default masks the doctor says why and which option gives it back.
    const masked = podman(['run', '--rm', '--runtime', 'runc', '--no-healthcheck', TAG, 'doctor'], {
      allowFail: true,
    });
    expect(masked).toMatch(/engine confinement: whole file system visible/);
    expect(masked).toMatch(/cannot mount a \/proc of the engines' own .*unmask=\/proc\/\*/);
  }, 120_000);

  it('stops on SIGTERM with exit code 0 and keeps its requests in the data volume across a restart', async () => {
    expect(stopSeconds).toBeGreaterThan(30);
    podman(['stop', '-t', String(stopSeconds), name]);
    expect(podman(['inspect', name, '--format', '{{.State.ExitCode}}']).trim()).toBe('0');
    const ready = await startContainer(false);
    log(`ready ${ready.toFixed(1)} s after a restart`);
    for (const id of Object.values(submitted)) {
      const again = await get(`${base}/api/public/requests/${id}`);
      expect(again.json.status).toBe('succeeded');
    }
    const pdf = await waitDone(base, submitted['docx-pdf']!);
    const path = await download(pdf, 'again.pdf');
    expect(execFileSync('pdfinfo', [path]).toString()).toMatch(/Pages:/);
  }, 300_000);
});
