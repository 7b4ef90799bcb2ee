import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/http/app.js';
import {
  type Answer,
  filePart,
  get,
  type Json,
  metaPart,
  type Part,
  post,
  ROOT,
  removeDir,
  startTestServer,
  type TestServer,
} from './helpers.js';

const CSV = 'name,qty\napple,3\npear,5\n';

interface MediaType {
  schema?: Json;
}
interface Operation {
  responses: Record<string, { content?: Record<string, MediaType>; headers?: Record<string, Json> }>;
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>>; components: Json };

let server: TestServer;
let base: string;
let doc: Document;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
/** `METHOD path` of every operation an answer was checked against. */
const checked = new Set<string>();

beforeAll(async () => {
  server = await startTestServer();
  base = server.url;
  const res = await get(`${base}/openapi.json`);
  expect(res.status).toBe(200);
  doc = res.json;
});
afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
});

/** Hono's `/requests/:id` as OpenAPI's `/requests/{id}`. */
const openApiPath = (honoPath: string) => honoPath.replace(/:([A-Za-z_]+)/g, '{$1}');

/**
 * Checks a real answer against the document: its status is documented for the operation, its
 * Content-Type is one of the documented media types, and a JSON body validates against that
 * media type's schema (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 */
function expectDocumented(method: string, path: string, res: Answer): void {
  const operation = doc.paths[path]?.[method.toLowerCase()];
  expect(operation, `${method} ${path} is in the document`).toBeDefined();
  const documented = operation!.responses[String(res.status)];
  expect(
    documented,
    `${method} ${path} documents status ${res.status}: ${res.text.slice(0, 200)}`,
  ).toBeDefined();
  for (const [name, header] of Object.entries(documented!.headers ?? {})) {
    if (header.required) expect(res.headers[name.toLowerCase()], `${name} header`).toBeDefined();
  }
  const content = documented!.content;
  if (content) {
    const type = String(res.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    const range = [type, `${type.split('/')[0]}/*`, '*/*'].find((t) => t in content);
    expect(
      range,
      `${method} ${path} ${res.status} answers ${type}, one of ${Object.keys(content)}`,
    ).toBeDefined();
    if (range === 'application/json') {
      const validate = ajv.compile({ ...content[range]!.schema, components: doc.components });
      const ok = validate(res.json);
      expect(ok ? [] : validate.errors, `${method} ${path} ${res.status}: ${res.text.slice(0, 300)}`).toEqual(
        [],
      );
    }
  }
  checked.add(`${method} ${path}`);
}

async function convert(
  meta: unknown,
  file: Part | null = filePart('fruit.csv', CSV, 'text/csv'),
  query = '',
) {
  return post(`${base}/api/public/convert${query}`, [metaPart(meta), ...(file ? [file] : [])]);
}

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document with every route the app serves, and nothing else', () => {
    expect(doc.openapi).toBe('3.1.0');
    const served = new Set(
      createApp(server.context)
        .routes.filter((r) => r.method !== 'ALL')
        .map((r) => `${r.method} ${openApiPath(r.path)}`),
    );
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    expect([...documented].sort()).toEqual([...served].sort());
  });

  it('is valid OpenAPI 3.1, by the JSON Schema of the specification', async () => {
    const validator = new Validator();
    expect(await validator.validate(structuredClone(doc))).toEqual({ valid: true });
    expect(validator.version).toBe('3.1');
    // The check has teeth: a document without its info object is refused.
    const { info: _, ...broken } = doc as Document & { info: unknown };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('is what npm run docs wrote to docs/openapi.json', () => {
    const written = JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8'));
    expect(written).toEqual(doc);
  });

  it('shows the options and the meta the server validates, and is linked from skill.md and the page', async () => {
    const options = doc.components.schemas.ConversionOptions;
    expect(options.properties.quality).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(options.additionalProperties).toBe(false);
    expect(doc.components.schemas.ConvertMeta.additionalProperties).toBe(false);
    expect(doc.components.schemas.Webhook.properties.events.items.enum).toEqual(['succeeded', 'failed']);
    const skill = await get(`${base}/skill.md`);
    expect(skill.text).toContain('/openapi.json');
    expect(readFileSync(join(ROOT, 'skill.md'), 'utf8')).toContain('/openapi.json');
    const page = await get(`${base}/`);
    expect(page.text).toContain('href="/openapi.json"');
  });
});

describe('real answers validate against the document', () => {
  it('detect, convert, the request, its timeline, artifact and file, and the recent list', async () => {
    const detect = await post(`${base}/api/public/detect`, [filePart('table.csv', CSV, 'text/csv')]);
    expectDocumented('POST', '/api/public/detect', detect);
    const owner = String(detect.headers['x-owner-token']);

    const accepted = await post(
      `${base}/api/public/convert`,
      [metaPart({ conversion: 'csv-json' }), filePart('a.csv', CSV)],
      {
        'x-owner-token': owner,
      },
    );
    expect(accepted.status).toBe(202);
    expectDocumented('POST', '/api/public/convert', accepted);
    const id = accepted.json.request_id as string;

    const done = await get(`${base}/api/public/requests/${id}?wait=30`);
    expect(done.json.status).toBe('succeeded');
    expectDocumented('GET', '/api/public/requests/{id}', done);

    const waited = await convert({ conversion: 'csv-json', options: {} }, undefined, '?wait=60');
    expect(waited.status).toBe(200);
    expectDocumented('POST', '/api/public/convert', waited);

    const timeline = await get(`${base}/api/public/requests/${id}/timeline`);
    expectDocumented('GET', '/api/public/requests/{id}/timeline', timeline);
    const timelineText = await get(`${base}/api/public/requests/${id}/timeline`, { accept: 'text/plain' });
    expect(timelineText.headers['content-type']).toMatch(/^text\/plain/);
    expectDocumented('GET', '/api/public/requests/{id}/timeline', timelineText);

    const artifact = await get(`${base}/api/public/requests/${id}/artifacts/json`);
    expect(artifact.status).toBe(302);
    expectDocumented('GET', '/api/public/requests/{id}/artifacts/{name}', artifact);
    const link = new URL(String(artifact.headers.location));
    const file = await get(link.href);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toMatch(/^application\/json/);
    expectDocumented('GET', '/files/{opaque}', file);
    const part = await get(link.href, { range: 'bytes=0-3' });
    expect(part.status).toBe(206);
    expectDocumented('GET', '/files/{opaque}', part);
    const forged = await get(
      `${link.origin}${link.pathname}?expires=${link.searchParams.get('expires')}&signature=${'0'.repeat(64)}`,
    );
    expectDocumented('GET', '/files/{opaque}', forged);
    expect(forged.json.error.code).toBe('INVALID_SIGNATURE');
    const outside = await get(link.href, { range: 'bytes=99999-' });
    expectDocumented('GET', '/files/{opaque}', outside);

    const recent = await get(`${base}/api/public/requests/recent?limit=5`, { 'x-owner-token': owner });
    expect(recent.json.requests.length).toBeGreaterThanOrEqual(2);
    expectDocumented('GET', '/api/public/requests/recent', recent);
  }, 120_000);

  it('the errors of writes and reads, with the codes the document lists for their status', async () => {
    const cases: [string, string, Answer, string][] = [
      ['POST', '/api/public/convert', await convert({ conversion: 'csv-json', bogus: 1 }), 'INVALID_REQUEST'],
      [
        'POST',
        '/api/public/convert',
        await convert({ conversion: 'csv-json', options: { dpi: 5 } }),
        'INVALID_REQUEST',
      ],
      ['POST', '/api/public/convert', await convert({ conversion: 'csv-nope' }), 'UNSUPPORTED_CONVERSION'],
      ['POST', '/api/public/convert', await convert({ conversion: 'csv-json' }, null), 'INTAKE_FAILED'],
      [
        'POST',
        '/api/public/convert',
        await convert({ conversion: 'csv-json' }, undefined, '?wait=61'),
        'INVALID_REQUEST',
      ],
      [
        'POST',
        '/api/public/convert',
        await convert({ source_url: 'ftp://example.com/a.csv', to: 'json' }, null),
        'INVALID_SOURCE_URL',
      ],
      [
        'POST',
        '/api/public/convert',
        await convert({ source_url: 'http://10.0.0.1/a.csv', to: 'json' }, null),
        'SOURCE_URL_BLOCKED',
      ],
      ['POST', '/api/public/detect', await post(`${base}/api/public/detect`, []), 'INTAKE_FAILED'],
      [
        'GET',
        '/api/public/requests/{id}',
        await get(`${base}/api/public/requests/${'x'.repeat(22)}`),
        'REQUEST_NOT_FOUND',
      ],
      [
        'GET',
        '/api/public/requests/{id}/timeline',
        await get(`${base}/api/public/requests/nope/timeline`),
        'REQUEST_NOT_FOUND',
      ],
      [
        'GET',
        '/api/public/requests/{id}/artifacts/{name}',
        await get(`${base}/api/public/requests/nope/artifacts/pdf`),
        'REQUEST_NOT_FOUND',
      ],
      [
        'GET',
        '/api/public/requests/recent',
        await get(`${base}/api/public/requests/recent`),
        'INVALID_REQUEST',
      ],
      [
        'GET',
        '/api/public/stats',
        await get(`${base}/api/public/stats`, { authorization: 'Bearer fck_not-a-key' }),
        'INVALID_API_KEY',
      ],
    ];
    for (const [method, path, res, code] of cases) {
      expect({ path, code: res.json?.error?.code }).toEqual({ path, code });
      expectDocumented(method, path, res);
    }
  }, 60_000);

  it('the read-only, operations and web page routes', async () => {
    const routes: [string, RegExp][] = [
      ['/api/public/stats', /json/],
      ['/api/public/conversions', /json/],
      ['/api/public/catalog', /json/],
      ['/skill.md', /^text\/markdown/],
      ['/openapi.json', /json/],
      ['/healthz', /json/],
      ['/readyz', /json/],
      ['/metrics', /^text\/plain/],
      ['/', /^text\/html/],
      ['/index.html', /^text\/html/],
      ['/app.js', /^text\/javascript/],
      ['/style.css', /^text\/css/],
    ];
    for (const [path, type] of routes) {
      const res = await get(`${base}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.headers['content-type']).toMatch(type);
      expectDocumented('GET', path, res);
    }
  });

  it('the recipe routes: save, replace, list, read, delete, and their refusals', async () => {
    const at = (path = '') => `${base}/api/public/recipes${path}`;
    const send = async (method: 'POST' | 'DELETE', url: string, body?: unknown, token?: string) => {
      const res = await request(url, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(token ? { 'x-owner-token': token } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.body.text();
      return {
        status: res.statusCode,
        headers: res.headers,
        text,
        json: text ? JSON.parse(text) : undefined,
      };
    };
    const saved = await send('POST', at(), { name: 'turn', to: 'pdf', options: { rotate: 90 } });
    expect(saved.status).toBe(201);
    expectDocumented('POST', '/api/public/recipes', saved);
    const token = String(saved.headers['x-owner-token']);
    const replaced = await send('POST', at(), { name: 'turn', to: 'pdf', options: { rotate: 180 } }, token);
    expect(replaced.status).toBe(200);
    expectDocumented('POST', '/api/public/recipes', replaced);
    const refused = await send('POST', at(), { name: 'turn', to: 'pdf', options: { rotate: 45 } }, token);
    expect(refused.status).toBe(400);
    expectDocumented('POST', '/api/public/recipes', refused);
    const owner = { 'x-owner-token': token };
    const list = await get(at(), owner);
    expect(list.status).toBe(200);
    expectDocumented('GET', '/api/public/recipes', list);
    const one = await get(at('/turn'), owner);
    expect(one.status).toBe(200);
    expectDocumented('GET', '/api/public/recipes/{name}', one);
    const missing = await get(at('/nothing'), owner);
    expect(missing.status).toBe(404);
    expectDocumented('GET', '/api/public/recipes/{name}', missing);
    const deleted = await send('DELETE', at('/turn'), undefined, token);
    expect(deleted.status).toBe(204);
    expectDocumented('DELETE', '/api/public/recipes/{name}', deleted);
    const gone = await send('DELETE', at('/turn'), undefined, token);
    expect(gone.status).toBe(404);
    expectDocumented('DELETE', '/api/public/recipes/{name}', gone);
  });

  it('the MCP endpoint, refused without an API key', async () => {
    const res = await get(`${base}/mcp`, {}, 'POST');
    expect(res.status).toBe(401);
    expectDocumented('POST', '/mcp', res);
  });

  it('covered every operation of the document with a real answer', () => {
    const all = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(all.filter((op) => !checked.has(op))).toEqual([]);
  });
});

describe('request validation keeps the spec codes', () => {
  it('answers 400 INVALID_REQUEST for meta, options and query values the schemas refuse', async () => {
    const bad = await request(`${base}/api/public/requests/recent?limit=0`, {
      headers: { 'x-owner-token': `fco_${'A'.repeat(43)}` },
    });
    expect(bad.statusCode).toBe(400);
    expect(((await bad.body.json()) as Json).error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'limit must be a positive integer.',
    });
    const option = await convert({ conversion: 'csv-json', options: { quality: 50 } });
    expect(option.status).toBe(400);
    expect(option.json.error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'option quality does not apply to this conversion (csv -(data)-> json)',
    });
    const meta = await convert({ conversion: 7 });
    expect(meta.json.error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'meta.conversion must be a string.',
    });
  });
});
