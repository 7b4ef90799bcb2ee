import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/http/app.js';
import { ROOT, removeDir, startTestServer, type TestServer } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
});

describe('documentation', () => {
  it('mentions every route of the app in skill.md and docs/api.md', () => {
    const app = createApp(server.context);
    const paths = [
      ...new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => r.path.replace(/:(\w+)/g, '{$1}'))),
    ];
    expect(paths.length).toBeGreaterThanOrEqual(13);
    for (const file of ['skill.md', 'docs/api.md']) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const missing = paths.filter((p) => !text.includes(p));
      expect({ file, missing }).toEqual({ file, missing: [] });
    }
  });

  it('lists every error code the server can answer in docs/api.md', () => {
    const text = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    for (const code of [
      'INVALID_REQUEST',
      'INTAKE_FAILED',
      'UNSUPPORTED_CONVERSION',
      'REQUEST_NOT_FOUND',
      'ARTIFACT_NOT_FOUND',
      'ARTIFACT_EXPIRED',
      'LINK_EXPIRED',
      'INVALID_SIGNATURE',
      'NOT_FOUND',
      'METHOD_NOT_ALLOWED',
      'CONVERT_API_UNAVAILABLE',
      'CONVERT_FAILED',
    ]) {
      expect(text).toContain(code);
    }
  });
});
