// The package as users get it: `npm pack`, installed with production dependencies only into an
// empty project and run through `npx --package=<tarball>`. Nothing here runs from the checkout.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, ROOT, removeDir, submit, waitDone } from '../server/helpers.js';
import { nativeMirror } from './native-mirror.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'detect');
const work = mkdtempSync(join(tmpdir(), 'fileconv-package-'));
const project = join(work, 'project');
const children: ChildProcess[] = [];
let tarball = '';

// A native dependency (better-sqlite3) that finds no prebuilt binary compiles: with every core.
// The checkout's own `npm ci` filled npm's cache with the same packages: `prefer-offline` takes
// them from there instead of asking the registry again for each of several hundred (what is
// tested is the tarball and how npm resolves and installs it, not the registry's answers).
const installEnv: NodeJS.ProcessEnv = {
  ...process.env,
  JOBS: 'max',
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};
let mirror: Awaited<ReturnType<typeof nativeMirror>> | undefined;

/** Newest modification time under a folder. */
function newest(dir: string): number {
  return Math.max(
    ...readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => statSync(join(e.parentPath, e.name)).mtimeMs),
  );
}

beforeAll(async () => {
  const built = join(ROOT, 'dist', 'cli.js');
  const builtAt = statSync(built, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (builtAt < Math.max(newest(join(ROOT, 'src')), newest(join(ROOT, 'converters')))) {
    throw new Error('dist/ is older than the sources: run `npm run build` before this test');
  }
  mirror = await nativeMirror(ROOT, work);
  Object.assign(installEnv, mirror.env);
  const packed = await execa('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT });
  const [info] = JSON.parse(packed.stdout) as [{ filename: string; size: number; files: { path: string }[] }];
  tarball = join(work, info.filename);
  const paths = info.files.map((f) => f.path);
  console.log(`tarball: ${info.filename}, ${(info.size / 1024).toFixed(1)} KiB, ${paths.length} files`);
  expect(paths.filter((p) => /^(test|bench|src|\.ci)\/|fixtures/.test(p))).toEqual([]);
  expect(paths).toEqual(
    expect.arrayContaining([
      'dist/cli.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/client.js',
      'dist/client.d.ts',
      'bin/fileconv',
    ]),
  );
  expect(paths).toEqual(
    expect.arrayContaining([
      'dist/converters/libreoffice/uno_bridge.py',
      'dist/converters/imagemagick/policy.xml',
    ]),
  );

  await execa('mkdir', ['-p', project]);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'uses-fileconv', private: true, type: 'module' }, null, 2),
  );
  const started = Date.now();
  await execa('npm', ['install', '--omit=dev', tarball], { cwd: project, env: installEnv });
  console.log(
    `npm install --omit=dev of the tarball: ${((Date.now() - started) / 1000).toFixed(1)} s ` +
      `(prebuilt native binaries served: ${mirror.served()})`,
  );
}, 600_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await mirror?.close();
  removeDir(work);
});

/** The installed CLI, run as a user's shell would. */
function fileconv(args: string[], options: { reject?: boolean } = {}) {
  return execa(join(project, 'node_modules', '.bin', 'fileconv'), args, {
    cwd: project,
    reject: options.reject ?? true,
    env: { ...process.env, NO_COLOR: '1' },
  });
}

function fixture(name: string): string {
  const to = join(project, name);
  copyFileSync(join(FIXTURES, name), to);
  return to;
}

describe('the installed package', () => {
  it('holds no development files: its dependencies are the production ones', () => {
    const installed = readdirSync(join(project, 'node_modules'));
    for (const dev of ['tsx', 'vitest', 'typescript', 'tsup', '@biomejs'])
      expect(installed).not.toContain(dev);
  });

  it('prints its version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect((await fileconv(['--version'])).stdout.trim()).toBe(version);
  });

  it('detects a file', async () => {
    const r = await fileconv(['detect', fixture('document.docx'), '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ detected: 'docx', match: true });
  });

  it('converts docx to pdf and png to webp', async () => {
    await fileconv(['convert', fixture('document.docx'), '--to', 'pdf']);
    expect(readFileSync(join(project, 'document.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    await fileconv(['convert', fixture('image.png'), '--to', 'webp']);
    const webp = readFileSync(join(project, 'image.webp'));
    expect(webp.subarray(8, 12).toString()).toBe('WEBP');
  });

  it('runs doctor, which finds every engine', async () => {
    const r = await fileconv(['doctor'], { reject: false });
    expect(r.stdout).toMatch(/^ok\s+libreoffice/m);
    expect(r.stdout).not.toMatch(/MISSING/);
    expect(r.exitCode).toBe(0);
  });

  it('serves the API: /readyz, a conversion over HTTP, then detect --server and fileconv/client', async () => {
    const child = spawn(
      join(project, 'node_modules', '.bin', 'fileconv'),
      ['serve', '--port', '0', '--data-dir', join(work, 'data')],
      { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
    });
    expect((await get(`${url}/readyz`)).status).toBe(200);
    const id = await submit(url, 'png-jpg', 'image.png', readFileSync(join(FIXTURES, 'image.png')));
    const done = await waitDone(url, id);
    expect(done.status).toBe('succeeded');
    const location = String((await get(done.artifacts[0].download)).headers.location);
    const jpg = await fetch(location);
    expect(Buffer.from(await jpg.arrayBuffer()).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    // The installed CLI and `fileconv/client` against the same server.
    const remote = await fileconv(['detect', fixture('image.png'), '--json', '--server', url]);
    expect(JSON.parse(remote.stdout)).toMatchObject({ detected: 'png', match: true });
    const script = `import { createClient } from 'fileconv/client';
      const r = await createClient({ server: process.argv[2] }).conversions();
      console.log(r.conversions.some((c) => c.key === 'png-jpg'));`;
    writeFileSync(join(project, 'client.mjs'), script);
    expect((await execa('node', ['client.mjs', url], { cwd: project })).stdout).toBe('true');
    child.kill('SIGTERM');
  });

  it('runs the library example (detect, convert, catalog, createApp, createServer)', async () => {
    copyFileSync(join(ROOT, 'docs', 'examples', 'library.mjs'), join(project, 'library.mjs'));
    const input = fixture('document.odt');
    const r = await execa('node', ['library.mjs', input, 'converted/'], { cwd: project });
    expect(r.stdout).toMatch(/^detect: .*document\.odt is odt/m);
    expect(r.stdout).toMatch(/^convert: odt-pdf -> .*converted\/document\.pdf$/m);
    expect(r.stdout).toMatch(/^catalog: \d+ conversions, [1-9]\d* from odt$/m);
    expect(r.stdout).toMatch(/^createApp: GET \/healthz answered 200$/m);
    expect(r.stdout).toMatch(/^createServer: http:\/\/127\.0\.0\.1:\d+\/readyz answered 200$/m);
    const pdf = readFileSync(join(project, 'converted', 'document.pdf'));
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  });
});

describe('npx --package=<tarball>', () => {
  it('starts from an empty folder and converts', async () => {
    const empty = join(work, 'empty');
    await execa('mkdir', ['-p', empty]);
    copyFileSync(join(FIXTURES, 'image.png'), join(empty, 'image.png'));
    const npx = (args: string[]) =>
      execa('npx', ['--yes', `--package=${tarball}`, 'fileconv', ...args], { cwd: empty, env: installEnv });
    const started = Date.now();
    expect((await npx(['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    console.log(`first npx run (installs the tarball): ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // README's first command: as root it installs what is missing, then probes again.
    const doctor = await npx(['doctor', '--install']);
    expect(doctor.stdout).not.toMatch(/MISSING/);
    await npx(['convert', 'image.png', '--to', 'webp']);
    expect(readFileSync(join(empty, 'image.webp')).subarray(8, 12).toString()).toBe('WEBP');
  }, 600_000);
});
