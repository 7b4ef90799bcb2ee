// A small client for the public API, written against api.md and its decisions page only.

import type { DetectReport } from '../detect/index.js';
import type { ArtifactChecks } from '../engine/checks.js';

export type { DetectReport };

export interface ApiErrorBody {
  code: string;
  message?: string;
  reset_at?: string;
  detail?: string;
  /** The option a refused request got wrong (a recipe's). */
  option?: string;
  /** The field a refused request got wrong (a recipe's name, target...). */
  field?: string;
}

export interface DetectResponse {
  request_id: string;
  status: string;
  report: DetectReport;
}

export interface Conversion {
  key: string;
  from: string;
  to: string;
  family: string;
}

export interface CatalogEntry {
  family: string;
  lossy: boolean;
  steps: Array<{ from: string; to: string; engine: string }>;
  /** The options some step of this conversion honours. */
  options?: string[];
}

/** The part of a JSON Schema the page reads to draw a field for an option. */
export interface OptionSchema {
  type?: string;
  enum?: Array<string | number>;
  anyOf?: OptionSchema[];
  minimum?: number;
  maximum?: number;
  examples?: unknown[];
  description?: string;
}

interface OpenApiDocument {
  components?: { schemas?: Record<string, { properties?: Record<string, OptionSchema> }> };
}

export interface Artifact {
  name: string;
  download?: string;
  format?: string;
  mime?: string;
  size?: number;
  sha256?: string;
  expires_at?: string;
  expired?: boolean;
  /** What the artifact kept: pages, pictures, words... */
  checks?: ArtifactChecks;
}

export interface Progress {
  percent?: number;
  stage?: string;
  step?: number;
  steps?: number;
}

export interface RequestState {
  request_id: string;
  status: 'running' | 'succeeded' | 'failed' | string;
  conversion?: string | null;
  progress?: Progress;
  artifacts?: Artifact[];
  error?: ApiErrorBody;
  created_at?: string;
}

export interface TimelineEvent {
  at: string;
  kind: string;
  message: string;
}

export interface ConvertMeta {
  conversion?: string;
  source_url?: string;
  to?: string;
  options?: Record<string, unknown>;
  /** A saved recipe's name: its target and options, which `options` adds to. */
  recipe?: string;
}

/** A saved target and options (src/core/recipes.ts), as the server lists it. */
export interface Recipe {
  name: string;
  description?: string;
  to: string;
  from?: string[];
  options?: Record<string, unknown>;
  merge?: boolean;
}

/** An answer that was not 2xx, or no answer at all (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message ?? body.code);
  }
}

const OWNER_TOKEN_KEY = 'fileconv.ownerToken';
const API_KEY_KEY = 'fileconv.apiKey';

function readStorage(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function writeStorage(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Storage can be disabled (private mode); the page still works, it just forgets.
  }
}

export const credentials = {
  ownerToken: (): string | null => readStorage(OWNER_TOKEN_KEY),
  apiKey: (): string | null => readStorage(API_KEY_KEY),
  setApiKey: (key: string | null): void => writeStorage(API_KEY_KEY, key?.trim() ? key.trim() : null),
};

function headersFor(write: boolean): Headers {
  const headers = new Headers({ Accept: 'application/json' });
  const apiKey = credentials.apiKey();
  if (apiKey) headers.set('Authorization', `Bearer ${apiKey}`);
  const owner = credentials.ownerToken();
  if (owner && write) headers.set('X-Owner-Token', owner);
  return headers;
}

async function call<T>(path: string, init: RequestInit & { write?: boolean } = {}): Promise<T> {
  const headers = headersFor(init.write ?? false);
  new Headers(init.headers).forEach((value, name) => {
    headers.set(name, value);
  });
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers });
  } catch {
    throw new ApiError(0, { code: 'NETWORK_ERROR', message: 'The service could not be reached.' });
  }
  // The server hands out the device's owner token on writes; keep whatever it sends.
  const owner = response.headers.get('X-Owner-Token');
  if (owner) writeStorage(OWNER_TOKEN_KEY, owner);
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data as { error?: ApiErrorBody } | null)?.error;
    throw new ApiError(
      response.status,
      error?.code ? error : { code: `HTTP_${response.status}`, message: text },
    );
  }
  return data as T;
}

function quoteFilename(name: string): string {
  return name.replace(/[\r\n]/g, ' ').replace(/"/g, '%22');
}

/**
 * Builds the multipart body by hand so the meta part carries `Content-Type: application/json`
 * without a filename, exactly as `curl -F 'meta=...;type=application/json'` sends it.
 * The files themselves are passed through as Blobs, never read into memory; several `file` parts
 * (a merge) go in the order given.
 */
function multipart(parts: {
  meta?: ConvertMeta;
  files?: readonly File[];
  /** Files of options sent as parts of their own, by part name (`stamp`, `certificate`). */
  optionFiles?: Readonly<Record<string, File>>;
}): {
  body: Blob;
  type: string;
} {
  const boundary = `----fileconv${crypto.getRandomValues(new Uint32Array(4)).join('')}`;
  const chunks: BlobPart[] = [];
  if (parts.meta) {
    chunks.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n`,
      JSON.stringify(parts.meta),
      '\r\n',
    );
  }
  const named = [
    ...(parts.files ?? []).map((file) => ['file', file] as const),
    ...Object.entries(parts.optionFiles ?? {}),
  ];
  for (const [name, file] of named) {
    chunks.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${quoteFilename(file.name)}"\r\n` +
        `Content-Type: ${file.type || 'application/octet-stream'}\r\n\r\n`,
      file,
      '\r\n',
    );
  }
  chunks.push(`--${boundary}--\r\n`);
  return { body: new Blob(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

export const api = {
  conversions: () => call<{ conversions: Conversion[] }>('/api/public/conversions'),
  catalog: () => call<{ keys: Record<string, CatalogEntry> }>('/api/public/catalog'),

  /** Every option's JSON Schema, from the OpenAPI document's `ConversionOptions`. */
  async optionSchemas(): Promise<Record<string, OptionSchema>> {
    const document = await call<OpenApiDocument>('/openapi.json');
    return document.components?.schemas?.ConversionOptions?.properties ?? {};
  },

  detect(file: File): Promise<DetectResponse> {
    const { body, type } = multipart({ files: [file] });
    return call('/api/public/detect', {
      method: 'POST',
      body,
      headers: { 'Content-Type': type },
      write: true,
    });
  },

  /**
   * One conversion: no file (a source URL), one file, or several taken in order (a merge); the
   * files of options (a stamp picture, a signing certificate) go as parts of their own.
   */
  convert(
    meta: ConvertMeta,
    files: readonly File[] = [],
    optionFiles: Readonly<Record<string, File>> = {},
  ): Promise<{ request_id: string; status: string }> {
    const { body, type } = multipart({ meta, files, optionFiles });
    return call('/api/public/convert', {
      method: 'POST',
      body,
      headers: { 'Content-Type': type },
      write: true,
    });
  },

  request: (id: string) => call<RequestState>(`/api/public/requests/${encodeURIComponent(id)}`),

  timeline: (id: string) =>
    call<{ events: TimelineEvent[] }>(`/api/public/requests/${encodeURIComponent(id)}/timeline`),

  recent(limit = 20): Promise<{ requests: RequestState[] }> {
    const owner = credentials.ownerToken();
    if (!owner) return Promise.resolve({ requests: [] });
    return call(`/api/public/requests/recent?limit=${limit}`, { headers: { 'X-Owner-Token': owner } });
  },

  /** The recipes saved from this device: reads are not writes, so the owner token is added here. */
  recipes(): Promise<{ recipes: Recipe[] }> {
    const owner = credentials.ownerToken();
    if (!owner) return Promise.resolve({ recipes: [] });
    return call('/api/public/recipes', { headers: { 'X-Owner-Token': owner } });
  },

  saveRecipe: (recipe: Recipe) =>
    call<{ recipe: Recipe }>('/api/public/recipes', {
      method: 'POST',
      body: JSON.stringify(recipe),
      headers: { 'Content-Type': 'application/json' },
      write: true,
    }),

  deleteRecipe: (name: string) =>
    call<null>(`/api/public/recipes/${encodeURIComponent(name)}`, { method: 'DELETE', write: true }),
};
