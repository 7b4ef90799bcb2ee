// `fileconv/client`: a typed client of the HTTP API (docs/library.md, "The HTTP client").
import { setTimeout as sleep } from 'node:timers/promises';
import createFetchClient from 'openapi-fetch';
import { FileconvError } from '../errors/index.js';
import { answerError, DEFAULT_RETRY, type RetryPolicy, unreachable, withRetry } from './answers.js';
import type { components, paths } from './api-types.js';
import { type ClientInput, downloadTo, type Upload, uploadOf } from './files.js';

export type { RetryPolicy } from './answers.js';
export type { components, paths } from './api-types.js';
export type { ClientInput } from './files.js';

type Schemas = components['schemas'];
export type Request = Schemas['Request'];
export type Artifact = Schemas['Artifact'];
export type DetectReport = Schemas['DetectReport'];
export type Catalog = Schemas['Catalog'];
export type Conversions = Schemas['Conversions'];
export type Timeline = Schemas['Timeline'];
export type ConvertMeta = Schemas['ConvertMeta'];
/** What a submit answers: the 202's `{request_id, status}`, or the finished request. */
export type Submitted = Schemas['ConvertAccepted'] | Request;

export interface ClientOptions {
  /** The server's base URL (`https://files.example.com`). */
  server: string;
  /** An API key (`fck_...`), sent as a Bearer token; anonymous without one. */
  key?: string;
  /** Retries of writes the server answers 429 or 503 with Retry-After. */
  retry?: Partial<RetryPolicy>;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

export interface SubmitOptions {
  /** Target format (`pdf`); the server detects the source format, by the CLI's own rule. */
  to?: string;
  /** Source format, instead of the server's detection: sent as the conversion `<from>-<to>`. */
  from?: string;
  /** A catalog key (`docx-pdf`), instead of `to` and `from`. */
  conversion?: string;
  /** The name each input goes by (its extension is the declared format); one per input. */
  filename?: string | string[];
  options?: Record<string, unknown>;
  webhook?: ConvertMeta['webhook'];
  /** A PNG, JPEG or SVG picture stamped on every page of a PDF: the part `stamp`. */
  stamp?: { input: ClientInput; filename: string };
  /** A PKCS#12 file that signs the PDF (option sign_password in `options`): the part `certificate`. */
  certificate?: { input: ClientInput; filename: string };
  /** Seconds the submit waits for the end before answering 202 (0 to 60; default 30). */
  wait?: number;
  signal?: AbortSignal;
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** Called with each answer while the request runs. */
  onStatus?: (request: Request) => void;
}

/** The longest long-poll the server holds (`GET /api/public/requests/{id}?wait=30`). */
const LONG_POLL_SECONDS = 30;

export type FileconvClient = ReturnType<typeof createClient>;

/** A client of one fileconv server: upload, wait with long-polls, download; retries on 429. */
export function createClient(options: ClientOptions) {
  const server = options.server.replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/i.test(server)) {
    throw new FileconvError('INVALID_REQUEST', `The server is an http(s) URL, not "${options.server}".`);
  }
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const headers: Record<string, string> = options.key ? { authorization: `Bearer ${options.key}` } : {};
  const api = createFetchClient<paths>({ baseUrl: server, headers, fetch: (r) => fetchImpl(r) });

  /** One call: its data, or the error its answer (or its failure to arrive) stands for. */
  async function call<D>(
    send: () => Promise<{ data?: D; error?: unknown; response: Response }>,
    signal?: AbortSignal,
  ): Promise<{ data: D; status: number }> {
    let result: Awaited<ReturnType<typeof send>>;
    try {
      result = await withRetry(send, retry, signal);
    } catch (e) {
      if (signal?.aborted || e instanceof FileconvError) throw e;
      throw unreachable(server, e);
    }
    if (!result.response.ok || result.data === undefined) {
      throw answerError(result.response.status, result.error);
    }
    return { data: result.data, status: result.response.status };
  }

  async function detect(
    input: ClientInput,
    opts: { filename?: string; declared?: string; signal?: AbortSignal } = {},
  ): Promise<DetectReport> {
    const upload = await uploadOf(input, opts.filename);
    const { data } = await call(
      () =>
        api.POST('/api/public/detect', {
          // A multipart body built here: openapi-fetch sends FormData as it is.
          body: detectForm(upload, opts.declared) as never,
          signal: opts.signal,
        }),
      opts.signal,
    );
    return data.report;
  }

  /** Files a conversion: the 202's `{request_id, status}`, or the finished request when it ended within `wait`. */
  async function submit(input: ClientInput | ClientInput[], opts: SubmitOptions): Promise<Submitted> {
    const inputs = Array.isArray(input) ? input : [input];
    const names = Array.isArray(opts.filename) ? opts.filename : [opts.filename];
    const uploads = await Promise.all(inputs.map((one, i) => uploadOf(one, names[i])));
    const stamp = opts.stamp ? await uploadOf(opts.stamp.input, opts.stamp.filename) : undefined;
    const certificate = opts.certificate
      ? await uploadOf(opts.certificate.input, opts.certificate.filename)
      : undefined;
    const meta = convertMeta(opts, inputs.length);
    const wait = String(opts.wait ?? LONG_POLL_SECONDS);
    const { data } = await call(
      () =>
        api.POST('/api/public/convert', {
          params: { query: { wait } },
          body: convertForm(meta, uploads, { stamp, certificate }) as never,
          signal: opts.signal,
        }),
      opts.signal,
    );
    return data;
  }

  async function status(id: string, opts: { wait?: number; signal?: AbortSignal } = {}): Promise<Request> {
    const query = opts.wait ? { wait: String(opts.wait) } : {};
    const { data } = await call(
      () => api.GET('/api/public/requests/{id}', { params: { path: { id }, query }, signal: opts.signal }),
      opts.signal,
    );
    return data;
  }

  /** Long-polls a request until it is no longer running: one request per 30 s of conversion. */
  async function waitFor(request: Submitted | string, opts: WaitOptions = {}): Promise<Request> {
    let current = typeof request === 'string' ? await status(request, opts) : request;
    while (!('progress' in current) || current.status === 'running') {
      // A proxy that cuts long answers short would make this loop spin: never faster than 1 a second.
      const started = Date.now();
      current = await status(current.request_id, { wait: LONG_POLL_SECONDS, signal: opts.signal });
      opts.onStatus?.(current);
      if (current.status === 'running' && Date.now() - started < 1000)
        await sleep(1000, undefined, { signal: opts.signal });
    }
    return current;
  }

  /**
   * Submits, waits and resolves with the succeeded request (download its artifacts with
   * `download`); a failed conversion rejects with a FileconvError of its code, as a local one does.
   */
  async function convert(input: ClientInput | ClientInput[], opts: SubmitOptions & WaitOptions) {
    const done = await waitFor(await submit(input, opts), opts);
    if (done.status === 'failed') {
      const code = done.error?.code ?? 'CONVERT_FAILED';
      throw answerError(502, { error: { code, message: done.error?.message, request_id: done.request_id } });
    }
    return done;
  }

  /** Writes an artifact (or the one named so in a request) to `path`; resolves with the path. */
  async function download(artifact: Artifact, path: string, opts: { signal?: AbortSignal } = {}) {
    if (!artifact.download) {
      throw new FileconvError('ARTIFACT_EXPIRED', `The artifact ${artifact.name} expired and was deleted.`);
    }
    try {
      return await downloadTo(artifact.download, path, { headers, fetch: fetchImpl, signal: opts.signal });
    } catch (e) {
      if (opts.signal?.aborted || e instanceof FileconvError) throw e;
      throw unreachable(server, e);
    }
  }

  return {
    server,
    /** The openapi-fetch client itself, typed from the OpenAPI document, for every other route. */
    api,
    detect,
    submit,
    status,
    wait: waitFor,
    convert,
    download,
    /** The build manifest: every conversion key with its family, lossiness, steps and options. */
    catalog: async (): Promise<Catalog> => (await call(() => api.GET('/api/public/catalog'))).data,
    /** Every pair the server's engines can do. */
    conversions: async (): Promise<Conversions> =>
      (await call(() => api.GET('/api/public/conversions'))).data,
    timeline: async (id: string): Promise<Timeline> => {
      const { data } = await call(() =>
        api.GET('/api/public/requests/{id}/timeline', {
          params: { path: { id } },
          headers: { accept: 'application/json' },
        }),
      );
      return data as Timeline;
    },
  };
}

function detectForm(upload: Upload, declared: string | undefined): FormData {
  const form = new FormData();
  form.append('file', upload.blob, upload.filename);
  if (declared !== undefined) form.append('declared', declared);
  return form;
}

/** The meta of a submission: `conversion` when the source is named, else the target alone. */
function convertMeta(opts: SubmitOptions, inputs: number): ConvertMeta {
  const meta: ConvertMeta = {};
  if (opts.conversion) meta.conversion = opts.conversion;
  else if (opts.from && opts.to) meta.conversion = `${opts.from}-${opts.to}`;
  else if (opts.to) meta.to = opts.to;
  else throw new FileconvError('INVALID_REQUEST', `Give the target format (to) of the ${plural(inputs)}.`);
  if (opts.options && Object.keys(opts.options).length > 0) meta.options = opts.options as never;
  if (opts.webhook) meta.webhook = opts.webhook;
  return meta;
}

const plural = (n: number) => (n === 1 ? 'input' : `${n} inputs`);

/** The form of a conversion: its meta, its files, and the files of options as parts of their own. */
function convertForm(
  meta: ConvertMeta,
  uploads: Upload[],
  optionParts: Record<'stamp' | 'certificate', Upload | undefined>,
): FormData {
  const form = new FormData();
  form.append('meta', new Blob([JSON.stringify(meta)], { type: 'application/json' }), 'meta.json');
  for (const upload of uploads) form.append('file', upload.blob, upload.filename);
  for (const [name, part] of Object.entries(optionParts))
    if (part) form.append(name, part.blob, part.filename);
  return form;
}
