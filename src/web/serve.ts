// What the HTTP server needs to serve the web page at `/`: the built files and their headers.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot, runningFromSource } from '../engine/package-files.js';

export interface WebAsset {
  body: Buffer;
  type: string;
}

/** Sent with every page response: nothing but this origin may be loaded, framed or posted to. */
export const WEB_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
});

const FILES: Record<string, { path: string; type: string }> = {
  '/': { path: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { path: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { path: 'style.css', type: 'text/css; charset=utf-8' },
};

let cached: Promise<Map<string, WebAsset>> | null = null;

/**
 * The page's files keyed by URL path (`/`, `/app.js`, `/style.css`), loaded once.
 * From dist/web when built; when run from the TypeScript source, bundled from it on the fly.
 */
export function webAssets(): Promise<Map<string, WebAsset>> {
  cached ??= loadAssets().catch((error: unknown) => {
    cached = null;
    throw error;
  });
  return cached;
}

async function loadAssets(): Promise<Map<string, WebAsset>> {
  const root = packageRoot();
  const builtDir = join(root, 'dist', 'web');
  const assets = new Map<string, WebAsset>();
  // Running from the TypeScript source, a dist/web left over from an older build would be stale.
  if (!runningFromSource && Object.values(FILES).every((f) => existsSync(join(builtDir, f.path)))) {
    for (const [urlPath, file] of Object.entries(FILES)) {
      assets.set(urlPath, { body: await readFile(join(builtDir, file.path)), type: file.type });
    }
    return assets;
  }
  const builder = join(root, 'src', 'web', 'build.ts');
  if (!existsSync(builder)) throw new Error('fileconv web page is not built: run `npm run build`');
  // Only reachable from a source checkout run through tsx; the path is computed so bundlers leave it alone.
  const { bundleWeb } = (await import(pathToFileURL(builder).href)) as typeof import('./build.js');
  const built = await bundleWeb();
  for (const [urlPath, file] of Object.entries(FILES)) {
    const asset = built.get(file.path as keyof typeof import('./build.js').WEB_FILES);
    if (asset) assets.set(urlPath, asset);
  }
  return assets;
}

/** A fetch-style answer for one of the page's paths, or null when the path is not the page's. */
export async function webResponse(request: Request): Promise<Response | null> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return null;
  const path = new URL(request.url).pathname;
  const asset = (await webAssets()).get(path === '/index.html' ? '/' : path);
  if (!asset) return null;
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(asset.body), {
    status: 200,
    headers: {
      ...WEB_SECURITY_HEADERS,
      'Content-Type': asset.type,
      'Content-Length': String(asset.body.length),
      'Cache-Control': 'no-cache',
    },
  });
}

/** The URL paths the page answers, for routers that register paths one by one. */
export const WEB_PATHS: readonly string[] = [...Object.keys(FILES), '/index.html'];

interface GetRouter {
  get(path: string, handler: (c: { req: { raw: Request } }) => Promise<Response>): unknown;
}

/** Registers the page on a Hono app (or anything with the same `get`): `mountWebPage(app)`. */
export function mountWebPage(app: GetRouter): void {
  for (const path of WEB_PATHS) {
    app.get(path, async (c) => (await webResponse(c.req.raw)) ?? new Response(null, { status: 404 }));
  }
}
