import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** How much of the start of a file every detection reads. */
export const HEAD_BYTES = 64 * 1024;

// Detection is a handful of small reads a file (at most a few MB in all), so they are made
// synchronously: each asynchronous call is a round trip through the thread pool that costs more
// than the read itself, and dominated detection time. The interface stays asynchronous.

/**
 * Random access to a file that only reads what is asked for, so detection stays bounded
 * however large the file is (a 2 GB file costs the head plus a few small reads).
 */
export class ByteSource {
  /** Bytes read from disk so far (the head included), to keep detection honest about its bounds. */
  bytesRead: number;

  private constructor(
    private readonly fd: number,
    readonly size: number,
    readonly head: Buffer,
  ) {
    this.bytesRead = head.length;
  }

  static async open(path: string): Promise<ByteSource> {
    const fd = openSync(path, 'r');
    try {
      const head = readHead(fd);
      // A head shorter than asked for is the whole file; only larger files need their size looked up.
      const size = head.length < HEAD_BYTES ? head.length : fstatSync(fd).size;
      return new ByteSource(fd, size, head);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  /** Whether the head holds the whole file (text sniffers can then parse all of it). */
  get complete(): boolean {
    return this.head.length === this.size;
  }

  /** Reads up to `length` bytes at `offset` (fewer at the end of the file). */
  async read(offset: number, length: number): Promise<Buffer> {
    if (offset < 0 || offset >= this.size || length <= 0) return Buffer.alloc(0);
    const end = Math.min(this.size, offset + length);
    if (end <= this.head.length) return this.head.subarray(offset, end);
    this.bytesRead += end - offset;
    return readAt(this.fd, offset, end - offset);
  }

  async close(): Promise<void> {
    closeSync(this.fd);
  }
}

/** Where heads are read before they are copied out at their real size. */
const scratch = Buffer.allocUnsafe(HEAD_BYTES);

/**
 * Most files are far smaller than HEAD_BYTES: a fresh 64 KB buffer for each, mostly unused, fed the
 * garbage collector in a batch, so the head is read into one scratch buffer and copied out at its
 * size (small copies come from node's shared pool).
 */
function readHead(fd: number): Buffer {
  const read = readAt(fd, 0, HEAD_BYTES, scratch);
  // Buffer.from(buffer) copies byte by byte in JavaScript; copy() is one memcpy.
  const head = Buffer.allocUnsafe(read.length);
  read.copy(head);
  return head;
}

function readAt(fd: number, offset: number, length: number, buf = Buffer.allocUnsafe(length)): Buffer {
  let done = 0;
  while (done < length) {
    const bytesRead = readSync(fd, buf, done, length - done, offset + done);
    done += bytesRead;
    // A regular file reads short only at its end; stopping here saves a read that would return 0.
    if (bytesRead === 0 || done < length) break;
  }
  return buf.subarray(0, done);
}
