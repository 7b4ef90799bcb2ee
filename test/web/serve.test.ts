import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { mountWebPage, WEB_SECURITY_HEADERS, webAssets, webResponse } from '../../src/web/serve.js';

describe('web page assets', () => {
  it('loads the page, its script and its style sheet with their media types', async () => {
    const assets = await webAssets();
    expect([...assets.keys()].sort()).toEqual(['/', '/app.js', '/style.css']);
    expect(assets.get('/')!.type).toMatch(/^text\/html/);
    expect(assets.get('/')!.body.toString()).toContain('id="dropzone"');
    expect(assets.get('/app.js')!.type).toMatch(/^text\/javascript/);
    expect(assets.get('/app.js')!.body.length).toBeGreaterThan(1000);
    expect(assets.get('/style.css')!.body.toString()).toContain('prefers-color-scheme: dark');
  });

  it('answers with the security headers and leaves other paths alone', async () => {
    const page = await webResponse(new Request('http://localhost/'));
    expect(page?.status).toBe(200);
    for (const [name, value] of Object.entries(WEB_SECURITY_HEADERS))
      expect(page!.headers.get(name)).toBe(value);
    expect(page!.headers.get('Content-Security-Policy')).toContain("default-src 'self'");
    expect(page!.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'");
    expect(await webResponse(new Request('http://localhost/api/public/catalog'))).toBeNull();
    expect(await webResponse(new Request('http://localhost/', { method: 'POST' }))).toBeNull();
  });

  it('mounts on a Hono app without taking over the API paths', async () => {
    const app = new Hono();
    mountWebPage(app);
    app.get('/api/public/stats', (c) => c.json({ ok: true }));
    const script = await app.request('/app.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(script.headers.get('Referrer-Policy')).toBe('no-referrer');
    expect((await app.request('/api/public/stats')).status).toBe(200);
    expect((await app.request('/nope')).status).toBe(404);
  });

  it('never turns API text into markup: the page source has no HTML sinks', async () => {
    const dir = join(import.meta.dirname, '..', '..', 'src', 'web');
    const sinks = /\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|createContextualFragment/;
    for (const name of await readdir(dir)) {
      if (!name.endsWith('.ts')) continue;
      expect(await readFile(join(dir, name), 'utf8'), name).not.toMatch(sinks);
    }
  });
});
