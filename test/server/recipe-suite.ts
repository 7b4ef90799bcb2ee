import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTestLoopback } from '../../src/intake/loopback.js';
import { resolveServeConfig } from '../../src/server/config.js';
import { publicUrlIntake } from '../../src/server/http/url-intake.js';
import { type RunningServer, startServer } from '../../src/server/server.js';
import { sizedPagesPdf } from '../converters/_image-samples.js';
import { pageRotations, pageText, pdfPages } from '../helpers/merge-inputs.js';
import { closeServer, startOrigin } from '../intake/servers.js';
import {
  SETUP_TITLES,
  type Setup,
  type SetupName,
  type Stores,
  setupMissing,
  startSetup,
  storeBlind,
} from '../support/setups.js';
import {
  type Answer,
  answer,
  downloadArtifact,
  filePart,
  type Json,
  metaPart,
  post,
  removeDir,
  startTestServer,
  tempDir,
  waitDone,
} from './helpers.js';

/** A JSON call of the recipe routes. */
export async function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await request(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return answer(res);
}

/**
 * Recipes through the HTTP API, run by one small file per setup: saving, reading and deleting
 * them under an owner token, and conversions that use them, the same on SQLite + disk and on
 * PostgreSQL + S3.
 */
export function recipeSuite(setupName: SetupName): void {
  const missing = setupMissing(setupName);
  const blind = storeBlind(setupName);
  describe.skipIf(missing)(`recipes on ${missing ?? SETUP_TITLES[setupName]}`, () => {
    let setup: Setup;
    let stores: Stores = {};
    let server: RunningServer;
    let dataDir: string;
    let base: string;
    let dir: string;
    let three: string;
    let one: string;
    let origin: Awaited<ReturnType<typeof startOrigin>>;

    beforeAll(async () => {
      setup = await startSetup(setupName);
      dir = tempDir('fileconv-recipes-');
      dataDir = join(dir, 'data');
      [three, one] = await Promise.all([
        sizedPagesPdf(dir, [200, 300, 400], 'three.pdf'),
        sizedPagesPdf(dir, [250], 'one.pdf'),
      ]);
      stores = await setup.stores();
      const config = resolveServeConfig(
        { host: '127.0.0.1', port: '0', concurrency: '2', rateLimit: '0', dataDir, ...stores },
        {},
      );
      // The test's own origin serves the source_url files: the public intake, with its loopback address let through.
      server = await startServer(config, {
        urlIntake: publicUrlIntake(config.maxUpload, (t) => isTestLoopback(t.address)),
        log: () => {},
      });
      base = server.url;
      origin = await startOrigin((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        res.end(readFileSync(three));
      });
    }, 120_000);
    afterAll(async () => {
      await server?.shutdown();
      if (origin) await closeServer(origin.server);
      await setup?.stop();
      if (dir) removeDir(dir);
    });

    const url = (path = '') => `${base}/api/public/recipes${path}`;
    const owner = (token: string) => ({ 'x-owner-token': token });
    /** Saves a recipe with a new owner token, which it returns. */
    const saveNew = async (recipe: unknown): Promise<string> => {
      const res = await call('POST', url(), recipe);
      expect(res.status, res.text).toBe(201);
      return String(res.headers['x-owner-token']);
    };
    const convert = async (meta: unknown, files: string[], token?: string) =>
      post(
        `${base}/api/public/convert`,
        [metaPart(meta), ...files.map((f) => filePart(f.split('/').pop()!, readFileSync(f)))],
        token ? owner(token) : {},
      );
    const converted = async (meta: unknown, files: string[], token?: string): Promise<string> => {
      const res = await convert(meta, files, token);
      expect(res.status, res.text).toBe(202);
      const done = await waitDone(base, res.json.request_id);
      expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
      return downloadArtifact(base, done.request_id, 'pdf', dir);
    };

    it('saves a recipe under the owner token it issues; lists, reads, replaces and deletes it', async () => {
      const first = await call('POST', url(), {
        name: 'turn',
        description: 'Pages 1-2, turned right',
        to: 'PDF',
        options: { rotate: 90, pages: '1-2' },
      });
      expect(first.status, first.text).toBe(201);
      const token = String(first.headers['x-owner-token']);
      expect(token).toMatch(/^fco_[A-Za-z0-9_-]{43}$/);
      expect(first.json.recipe).toEqual({
        name: 'turn',
        description: 'Pages 1-2, turned right',
        to: 'pdf',
        options: { rotate: 90, pages: '1-2' },
        merge: false,
        created_at: expect.any(String),
        updated_at: first.json.recipe.created_at,
      });
      const second = await call('POST', url(), { name: 'a-first', to: 'pdf', from: ['pdf'] }, owner(token));
      expect(second.status).toBe(201);
      expect(second.headers['x-owner-token']).toBeUndefined();
      const listed = await call('GET', url(), undefined, owner(token));
      expect(listed.status).toBe(200);
      expect(listed.json.recipes.map((r: Json) => r.name)).toEqual(['a-first', 'turn']);
      expect(listed.json.recipes[0]).toMatchObject({ to: 'pdf', from: ['pdf'], options: {}, merge: false });

      await new Promise((r) => setTimeout(r, 5));
      const replaced = await call(
        'POST',
        url(),
        { name: 'turn', to: 'pdf', options: { rotate: 180 } },
        owner(token),
      );
      expect(replaced.status, replaced.text).toBe(200);
      expect(replaced.json.recipe).toMatchObject({ name: 'turn', options: { rotate: 180 } });
      expect(replaced.json.recipe.description).toBeUndefined();
      expect(replaced.json.recipe.created_at).toBe(first.json.recipe.created_at);
      expect(replaced.json.recipe.updated_at > first.json.recipe.updated_at).toBe(true);
      const read = await call('GET', url('/turn'), undefined, owner(token));
      expect(read.status).toBe(200);
      expect(read.json).toEqual({ recipe: replaced.json.recipe });

      expect((await call('DELETE', url('/turn'), undefined, owner(token))).status).toBe(204);
      const again = await call('DELETE', url('/turn'), undefined, owner(token));
      expect(again.status).toBe(404);
      expect(again.json.error.code).toBe('NOT_FOUND');
      expect((await call('GET', url('/turn'), undefined, owner(token))).status).toBe(404);
      expect(
        (await call('GET', url(), undefined, owner(token))).json.recipes.map((r: Json) => r.name),
      ).toEqual(['a-first']);
    });

    it('keeps each owner token its own: another cannot see, read, delete or use a recipe', async () => {
      const mine = await saveNew({ name: 'secretive', to: 'pdf', options: { rotate: 270 } });
      const theirs = await saveNew({ name: 'other', to: 'pdf' });
      expect(
        (await call('GET', url(), undefined, owner(theirs))).json.recipes.map((r: Json) => r.name),
      ).toEqual(['other']);
      expect((await call('GET', url('/secretive'), undefined, owner(theirs))).status).toBe(404);
      expect((await call('DELETE', url('/secretive'), undefined, owner(theirs))).status).toBe(404);
      // Without a token: nothing to see.
      expect((await call('GET', url())).json).toEqual({ recipes: [] });
      const none = await call('GET', url('/secretive'));
      expect(none.status).toBe(404);
      expect(none.json.error.code).toBe('NOT_FOUND');
      expect((await call('DELETE', url('/secretive'))).status).toBe(404);
      // Their conversion cannot name it, nor can one without a token.
      for (const token of [theirs, undefined]) {
        const res = await convert({ recipe: 'secretive' }, [one], token);
        expect(res.status, res.text).toBe(400);
        expect(res.json.error.code).toBe('INVALID_REQUEST');
        expect(res.json.error.message).toMatch(/no recipe named "secretive"/);
      }
      // A token this server never issues is refused, as on writes.
      const bad = await call('GET', url(), undefined, owner('fco_nope'));
      expect(bad.status).toBe(400);
      expect(bad.json.error.code).toBe('INVALID_REQUEST');
      expect((await call('GET', url('/secretive'), undefined, owner(mine))).status).toBe(200);
    });

    it('refuses a bad recipe, naming the option or field, and keeps nothing', async () => {
      const token = await saveNew({ name: 'kept', to: 'pdf' });
      const cases: [unknown, Record<string, string>][] = [
        [{ name: 'x', to: 'pdf', options: { sparkle: true } }, { option: 'sparkle' }],
        [{ name: 'x', to: 'pdf', options: { rotate: 45 } }, { option: 'rotate' }],
        [{ name: 'x', to: 'pdf', options: { password: 'hunter2' } }, { option: 'password' }],
        [{ name: 'x', to: 'json', options: { rotate: 90 } }, { option: 'rotate' }],
        [{ name: 'Not A Name', to: 'pdf' }, { field: 'name' }],
        [{ name: 'x', to: 'nonsense' }, { field: 'to' }],
        [{ name: 'x', to: 'pdf', colour: 'red' }, {}],
        [{ name: 'x', to: 'pdf', merge: 'yes' }, { field: 'merge' }],
      ];
      for (const [recipe, named] of cases) {
        const res = await call('POST', url(), recipe, owner(token));
        expect({ recipe, status: res.status }).toEqual({ recipe, status: 400 });
        expect(res.json.error).toMatchObject({ code: 'INVALID_REQUEST', ...named });
      }
      const password = await call('POST', url(), cases[2]![0], owner(token));
      expect(password.json.error.message).toMatch(/password/);
      expect(password.text).not.toContain('hunter2');
      for (const body of ['{not json', '[]', '"turn"']) {
        const res = await call('POST', url(), body, owner(token));
        expect(res.status).toBe(400);
        expect(res.json.error.code).toBe('INVALID_REQUEST');
      }
      const huge = await call(
        'POST',
        url(),
        { name: 'big', to: 'pdf', description: 'x'.repeat(70_000) },
        owner(token),
      );
      expect(huge.status).toBe(400);
      expect(
        (await call('GET', url(), undefined, owner(token))).json.recipes.map((r: Json) => r.name),
      ).toEqual(['kept']);
    });

    it('converts with a saved recipe by name: the output has its pages and rotation', async () => {
      const token = await saveNew({ name: 'turn-two', to: 'pdf', options: { rotate: 90, pages: '1-2' } });
      const pdf = await converted({ recipe: 'turn-two' }, [three], token);
      expect(pdfPages(pdf)).toBe(2);
      expect(pageRotations(pdf)).toEqual([90, 90]);
      // The run's options go over the recipe's, for that run only.
      const over = await converted({ recipe: 'turn-two', options: { pages: '3' } }, [three], token);
      expect(pageText(over, 1)).toMatch(/Page 3/);
      expect(pageRotations(over)).toEqual([90]);
      // A conversion naming the recipe's target keeps its source format; another target is refused.
      const same = await converted({ recipe: 'turn-two', conversion: 'pdf-pdf' }, [three], token);
      expect(pdfPages(same)).toBe(2);
      for (const meta of [
        { recipe: 'turn-two', conversion: 'pdf-png' },
        { recipe: 'turn-two', to: 'txt' },
      ]) {
        const res = await convert(meta, [three], token);
        expect(res.status, res.text).toBe(400);
        expect(res.json.error.message).toMatch(/converts to pdf/);
      }
    });

    it('converts a source_url with a saved recipe', async () => {
      const token = await saveNew({ name: 'first-page', to: 'pdf', options: { pages: '1' } });
      const res = await post(
        `${base}/api/public/convert`,
        [metaPart({ source_url: `${origin.base}/three.pdf`, recipe: 'first-page' })],
        owner(token),
      );
      expect(res.status, res.text).toBe(202);
      const done = await waitDone(base, res.json.request_id);
      expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
      const pdf = await downloadArtifact(base, done.request_id, 'pdf', dir);
      expect(pdfPages(pdf)).toBe(1);
    });

    blind('converts with a recipe given whole, checked as a save is', async () => {
      const pdf = await converted(
        { recipe: { name: 'inline', to: 'pdf', options: { pages: '2', rotate: 180 } } },
        [three],
      );
      expect(pdfPages(pdf)).toBe(1);
      expect(pageText(pdf, 1)).toMatch(/Page 2/);
      expect(pageRotations(pdf)).toEqual([180]);
      for (const [recipe, option] of [
        [{ name: 'inline', to: 'pdf', options: { rotate: 45 } }, 'rotate'],
        [{ name: 'inline', to: 'pdf', options: { password: 'x' } }, 'password'],
      ] as const) {
        const res = await convert({ recipe }, [three]);
        expect(res.status, res.text).toBe(400);
        expect(res.json.error).toMatchObject({ code: 'INVALID_REQUEST', option });
      }
      const wrongType = await convert({ recipe: 42 }, [three]);
      expect(wrongType.status).toBe(400);
    });

    it('merges several files with a merge recipe; refuses them with one that converts one file', async () => {
      const token = await saveNew({ name: 'bind', to: 'pdf', merge: true, options: { rotate: 90 } });
      await call('POST', url(), { name: 'single', to: 'pdf', options: { rotate: 90 } }, owner(token));
      const pdf = await converted({ recipe: 'bind' }, [one, three], token);
      expect(pdfPages(pdf)).toBe(4);
      expect(pageRotations(pdf)).toEqual([90, 90, 90, 90]);
      expect(pageText(pdf, 2)).toMatch(/Page 1/);
      const refused = await convert({ recipe: 'single' }, [one, three], token);
      expect(refused.status, refused.text).toBe(400);
      expect(refused.json.error.message).toMatch(/one file per request/);
    });

    it.skipIf(setupName !== 'postgres-s3')(
      'checks and saves on an API node that runs no conversions; every node sees the recipe',
      async () => {
        const api = await startTestServer({ ...stores, worker: 'false', dataDir: join(dir, 'api-node') });
        try {
          const bad = await call('POST', `${api.url}/api/public/recipes`, {
            name: 'x',
            to: 'pdf',
            options: { rotate: 45 },
          });
          expect(bad.status).toBe(400);
          expect(bad.json.error.option).toBe('rotate');
          const saved = await call('POST', `${api.url}/api/public/recipes`, {
            name: 'api-node',
            to: 'pdf',
            options: { pages: '2' },
          });
          expect(saved.status, saved.text).toBe(201);
          const token = String(saved.headers['x-owner-token']);
          const seen = await call('GET', url('/api-node'), undefined, owner(token));
          expect(seen.status, seen.text).toBe(200);
          expect(seen.json.recipe.options).toEqual({
            pages: '2',
          });
          // Filed on the API node, converted by the worker node.
          const res = await post(
            `${api.url}/api/public/convert`,
            [metaPart({ recipe: 'api-node' }), filePart('three.pdf', readFileSync(three))],
            owner(token),
          );
          expect(res.status, res.text).toBe(202);
          const done = await waitDone(base, res.json.request_id);
          expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
          const pdf = await downloadArtifact(base, done.request_id, 'pdf', dir);
          expect(pageText(pdf, 1)).toMatch(/Page 2/);
        } finally {
          await api.stop();
          removeDir(api.dataDir);
        }
      },
    );

    blind('counts recipe writes against the per-minute write limit, and draws no quota', async () => {
      const limited = await startTestServer({
        rateLimit: '2',
        quotaAnon: 'conversions=0,voice=0,file_checks=0',
      });
      try {
        const at = (path = '') => `${limited.url}/api/public/recipes${path}`;
        const first = await call('POST', at(), { name: 'a', to: 'pdf' });
        expect(first.status, first.text).toBe(201);
        const token = owner(String(first.headers['x-owner-token']));
        expect((await call('DELETE', at('/a'), undefined, token)).status).toBe(204);
        const third = await call('POST', at(), { name: 'b', to: 'pdf' }, token);
        expect(third.status).toBe(429);
        expect(third.json.error.code).toBe('RATE_LIMITED');
        expect(third.headers['retry-after']).toBeDefined();
        // Reads are no writes.
        expect((await call('GET', at(), undefined, token)).status).toBe(200);
      } finally {
        await limited.stop();
        removeDir(limited.dataDir);
      }
    });
  });
}
