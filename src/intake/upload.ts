import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import { FileconvError } from '../errors/index.js';
import type { BlobStore, BlobWriter } from '../store/types.js';
import { sanitizeFilename } from './filename.js';
import { type UploadPace, watchUploadPace } from './upload-pace.js';

/** Room for multipart boundaries, part headers and the meta part on top of the file itself. */
export const MULTIPART_OVERHEAD = 64 * 1024;
const MAX_FIELD_BYTES = 64 * 1024;
/**
 * Parts read into memory beside the files, each the bytes of one option (docs/operations.md): the
 * stamp picture (stamp_image) and the signing certificate (sign_certificate), at the limits of the
 * options they become.
 */
const SMALL_PARTS = {
  stamp: { max: 1024 * 1024, what: 'stamp picture' },
  certificate: { max: 64 * 1024, what: 'certificate' },
} as const;
type SmallPart = keyof typeof SMALL_PARTS;
const isSmallPart = (name: string): name is SmallPart => Object.hasOwn(SMALL_PARTS, name);
/** An uploaded part whose name has nothing usable left is called this. */
const UPLOAD_FALLBACK_NAME = 'upload';
/**
 * Buffering between the socket, the multipart parser and the file on disk. Node's 16 KiB default
 * paused and resumed the parser for every socket read; 1 MiB lets disk writes take several reads at
 * once, and memory stays bounded by it per upload.
 */
const UPLOAD_BUFFER_BYTES = 1024 * 1024;

export interface UploadedFile {
  key: string;
  filename: string;
  contentType: string;
  size: number;
}

export interface ParsedUpload {
  /** Non-file parts by name (a `meta` sent as a file part is read into here too). */
  fields: Map<string, { value: string; mimeType: string }>;
  /** The first (or only) file part. */
  file: UploadedFile | undefined;
  /** Every file part, in the order sent (at most `maxFiles`). */
  files: UploadedFile[];
  /** The picture of a `stamp` part (the option stamp_image), held in memory: at most 1 MiB. */
  stamp?: { bytes: Buffer; filename: string };
  /** The PKCS#12 file of a `certificate` part (the option sign_certificate): at most 64 KiB. */
  certificate?: { bytes: Buffer; filename: string };
}

/** Reads a small part into memory; `done` gets its bytes, or undefined when it was over `max`. */
function readSmallPart(stream: NodeJS.ReadableStream, max: number, done: (bytes?: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (c: Buffer) => {
    size += c.length;
    if (size <= max) chunks.push(c);
  });
  stream.on('end', () => done(size > max ? undefined : Buffer.concat(chunks)));
}

/** Where the n-th file part (from 0) of an upload is stored: the key itself, then `key.2`, `key.3`... */
export function fileKeyOf(key: string, n: number): string {
  return n === 0 ? key : `${key}.${n + 1}`;
}

/**
 * Lets the rest of a refused body arrive and throws it away, so the answer already sent reaches
 * the client (a reset while it is still sending loses the answer for many clients).
 */
export function drainRequest(incoming: IncomingMessage, maxMs = 120_000): void {
  if (incoming.readableEnded || incoming.destroyed) return;
  const timer = setTimeout(() => incoming.socket?.destroy(), maxMs);
  timer.unref();
  const done = () => clearTimeout(timer);
  incoming.once('end', done);
  incoming.once('close', done);
  incoming.resume();
}

/** INTAKE_FAILED for an upload over the size limit: answered 413 where other intake failures are 422. */
export class UploadTooLargeError extends FileconvError {
  constructor(max: number) {
    super('INTAKE_FAILED', `The upload is larger than the limit of ${max} bytes.`);
  }
}

/** A full disk is the server's condition (507, retry later), not a fault of the upload. */
function storeFailure(e: unknown): FileconvError {
  // The blob store's own verdict (remote storage unreachable: 503) stands; local disk errors are mapped here.
  if (e instanceof FileconvError) return e;
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return new FileconvError('INSUFFICIENT_STORAGE', undefined, { cause: e });
  return new FileconvError('INTAKE_FAILED', 'The upload could not be stored.', { cause: e });
}

function tooLarge(max: number): FileconvError {
  return new UploadTooLargeError(max);
}

/** 413 up front when Content-Length already says the body is too large. */
export function checkContentLength(
  incoming: IncomingMessage,
  maxFileBytes: number,
): FileconvError | undefined {
  const declared = Number(incoming.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxFileBytes + MULTIPART_OVERHEAD)
    return tooLarge(maxFileBytes);
  return undefined;
}

interface Receiving {
  file: Omit<UploadedFile, 'size'>;
  writer?: BlobWriter;
  done: Promise<number>;
}

/**
 * Streams a multipart body: each part `file` goes straight into the blob store, the first under
 * `fileKey`, later ones (up to `maxFiles`, for a merge) under `fileKeyOf` (memory stays flat
 * whatever their size), other parts are small fields. `maxFileBytes` caps all files together.
 * Refusals (status 413/422/400) remove every partial blob and drain the rest of the body.
 */
export function receiveUpload(
  incoming: IncomingMessage,
  blobs: BlobStore,
  fileKey: string,
  maxFileBytes: number,
  pace?: UploadPace,
  maxFiles = 1,
  onMeta?: (meta: { value: string; mimeType: string }) => Promise<void>,
): Promise<ParsedUpload> {
  return new Promise((resolve, reject) => {
    const fields = new Map<string, { value: string; mimeType: string }>();
    const receiving: Receiving[] = [];
    const small: Pick<ParsedUpload, SmallPart> = {};
    const smallSeen = new Set<SmallPart>();
    let total = 0;
    let settled = false;
    const tooManyFiles = () =>
      maxFiles === 1
        ? new FileconvError('INTAKE_FAILED', 'Send exactly one file part.')
        : new FileconvError(
            'INVALID_REQUEST',
            `Too many file parts: one request takes at most ${maxFiles} files (a merge of at most ${maxFiles} inputs).`,
          );

    let parser: BusboyInstance;
    try {
      parser = Busboy({
        // No Content-Type is refused as an unsupported one.
        headers: { ...incoming.headers, 'content-type': incoming.headers['content-type'] ?? '' },
        highWaterMark: UPLOAD_BUFFER_BYTES,
        fileHwm: UPLOAD_BUFFER_BYTES,
        limits: {
          // One more than allowed, so going over is seen (a meta, a stamp and a certificate count too).
          files: maxFiles + 4,
          fields: 8,
          parts: maxFiles + 11,
          fileSize: maxFileBytes + 1,
          fieldSize: MAX_FIELD_BYTES,
          headerPairs: 50,
        },
      });
    } catch {
      drainRequest(incoming);
      reject(new FileconvError('INTAKE_FAILED', 'The body must be multipart/form-data with a file part.'));
      return;
    }

    /**
     * A meta part that comes before the file is checked at once: a request it makes invalid is
     * refused while the file still arrives (FileconvError only; anything else is left to the caller).
     */
    const metaArrived = (meta: { value: string; mimeType: string }) => {
      fields.set('meta', meta);
      onMeta?.(meta).catch((e) => {
        if (e instanceof FileconvError) refuse(e);
      });
    };

    const refuse = (error: FileconvError, drainMs?: number) => {
      if (settled) return;
      settled = true;
      stopPace();
      incoming.unpipe(parser);
      parser.removeAllListeners();
      parser.on('error', () => {});
      drainRequest(incoming, drainMs);
      // A writer still being created removes its own file once it sees the refusal (below): wait
      // for that too, since a fast parser can reach a limit before the blob file exists.
      const cleanup = Promise.all(
        receiving.map((r) => {
          r.done.catch(() => {});
          return r.writer ? r.writer.abort().catch(() => {}) : r.done.catch(() => {});
        }),
      );
      cleanup.then(
        () => reject(error),
        () => reject(error),
      );
    };

    // A client that fell behind gets its answer, then the connection is closed: draining a
    // trickle would hold the socket as long as the client likes.
    const stopPace = pace ? watchUploadPace(incoming, pace, (e) => refuse(e, 1000)) : () => {};

    parser.on('file', (name, stream, filename, _encoding, mimeType) => {
      // busboy says "limit" on reaching fileSize, so it is set one byte over the cap.
      // A cut-off body errors the part too; the parser's own error event reports it.
      stream.on('error', () => {});
      if (name === 'meta') {
        readSmallPart(stream, MAX_FIELD_BYTES, (bytes) => {
          if (!bytes) refuse(new FileconvError('INVALID_REQUEST', 'The meta part is too large.'));
          else metaArrived({ value: bytes.toString('utf8'), mimeType });
        });
        return;
      }
      if (isSmallPart(name)) {
        if (smallSeen.has(name)) {
          stream.resume();
          refuse(new FileconvError('INVALID_REQUEST', `Send at most one "${name}" part.`));
          return;
        }
        smallSeen.add(name);
        const { max, what } = SMALL_PARTS[name];
        readSmallPart(stream, max, (bytes) => {
          if (!bytes) refuse(new FileconvError('INVALID_REQUEST', `The ${what} is over ${max} bytes.`));
          else small[name] = { bytes, filename: sanitizeFilename(filename, UPLOAD_FALLBACK_NAME) };
        });
        return;
      }
      if (name !== 'file' || receiving.length >= maxFiles) {
        stream.resume();
        refuse(
          name === 'file'
            ? tooManyFiles()
            : new FileconvError(
                'INTAKE_FAILED',
                `Unexpected file part "${sanitizeFilename(name, UPLOAD_FALLBACK_NAME)}"; the file goes in the part "file".`,
              ),
        );
        return;
      }
      const key = fileKeyOf(fileKey, receiving.length);
      const entry: Receiving = {
        file: { key, filename: sanitizeFilename(filename, UPLOAD_FALLBACK_NAME), contentType: mimeType },
        done: Promise.resolve(0),
      };
      receiving.push(entry);
      stream.on('limit', () => refuse(tooLarge(maxFileBytes)));
      entry.done = blobs.createWriter(key).then(async (w) => {
        entry.writer = w;
        if (settled) {
          await w.abort();
          return 0;
        }
        let size = 0;
        stream.on('data', (c: Buffer) => {
          size += c.length;
          total += c.length;
          // The cap is on all files together.
          if (total > maxFileBytes) refuse(tooLarge(maxFileBytes));
        });
        await pipeline(stream, w.stream);
        return size;
      });
      entry.done.catch((e) => refuse(storeFailure(e)));
    });

    parser.on('field', (name, value, _nameTruncated, valueTruncated, _encoding, mimeType) => {
      if (valueTruncated)
        refuse(
          new FileconvError(
            'INVALID_REQUEST',
            `The part "${sanitizeFilename(name, UPLOAD_FALLBACK_NAME)}" is too large.`,
          ),
        );
      else if (name === 'meta') metaArrived({ value, mimeType });
      else fields.set(name, { value, mimeType });
    });
    const tooMany = () =>
      refuse(new FileconvError('INTAKE_FAILED', 'The multipart body has too many parts.'));
    parser.on('filesLimit', () => refuse(tooManyFiles()));
    parser.on('fieldsLimit', tooMany);
    parser.on('partsLimit', tooMany);
    parser.on('error', () => refuse(new FileconvError('INTAKE_FAILED', 'The multipart body is malformed.')));
    parser.on('finish', async () => {
      if (settled) return;
      let sizes: number[];
      try {
        sizes = await Promise.all(receiving.map((r) => r.done));
      } catch {
        return;
      }
      if (settled) return;
      try {
        for (const r of receiving) await r.writer?.commit();
      } catch (e) {
        refuse(storeFailure(e));
        return;
      }
      settled = true;
      stopPace();
      const files = receiving.map((r, i) => ({ ...r.file, size: sizes[i] ?? 0 }));
      resolve({ fields, file: files[0], files, ...small });
    });
    incoming.on('aborted', () =>
      refuse(new FileconvError('INTAKE_FAILED', 'The client stopped sending the upload.')),
    );
    incoming.on('error', () => refuse(new FileconvError('INTAKE_FAILED', 'The upload was interrupted.')));
    incoming.pipe(parser);
  });
}
