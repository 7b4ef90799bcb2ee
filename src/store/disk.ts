import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, copyFile, link, mkdir, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { privateFolder } from '../run/private-folder.js';
import { checkBlobKey } from './blob-key.js';
import type { BlobStat, BlobStore, BlobWriter } from './types.js';

/**
 * BlobStore on a local folder: `<root>/blobs/<key>`. Every folder is 0700 and every file 0600,
 * the server's user's alone: uploads and results are no other local user's to read.
 */
export class DiskBlobStore implements BlobStore {
  private readonly blobs: string;

  constructor(root: string) {
    this.blobs = join(root, 'blobs');
  }

  async init(): Promise<void> {
    await privateFolder(this.blobs);
  }

  private path(key: string): string {
    return join(this.blobs, ...checkBlobKey(key).split('/'));
  }

  async createWriter(key: string): Promise<BlobWriter> {
    const final = this.path(key);
    const partial = `${final}.part`;
    await mkdir(dirname(final), { recursive: true, mode: 0o700 });
    // A large buffer lets a fast upload reach the disk in few large writes (see intake/upload.ts).
    const stream = createWriteStream(partial, { flags: 'w', mode: 0o600, highWaterMark: 1024 * 1024 });
    return {
      stream,
      commit: () => rename(partial, final),
      abort: async () => {
        // Destroyed while still opening, the stream opens, closes and may report an error after
        // the folder is pruned: wait for it to close, and let nothing it says go unhandled.
        stream.on('error', () => {});
        if (!stream.closed) {
          const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
          stream.destroy();
          await closed;
        }
        await rm(partial, { force: true });
        await this.pruneEmpty(dirname(final));
      },
    };
  }

  async putFile(key: string, path: string): Promise<void> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    // A second name for the same bytes when scratch space is on this file system (no copy); the
    // caller deletes its own name. Another file system, or a target left by a crash: copy.
    const partial = `${target}.part`;
    await rm(partial, { force: true });
    await link(path, partial).catch(() => copyFile(path, partial));
    // An engine's output has the mode its umask gave it (0644).
    await chmod(partial, 0o600);
    await rename(partial, target);
  }

  async withLocalCopy<T>(key: string, _scratchDir: string, fn: (path: string) => Promise<T>): Promise<T> {
    return fn(this.path(key));
  }

  localPath(key: string): string {
    return this.path(key);
  }

  async stat(key: string): Promise<BlobStat | undefined> {
    try {
      const s = await stat(this.path(key));
      return s.isFile() ? { size: s.size } : undefined;
    } catch {
      return undefined;
    }
  }

  async openRead(key: string, range?: { start: number; end: number }): Promise<Readable> {
    const stream = createReadStream(this.path(key), range);
    // Opening errors (a blob deleted meanwhile) surface here, not later on the stream.
    await once(stream, 'open');
    return stream;
  }

  async delete(key: string): Promise<void> {
    const p = this.path(key);
    // A blob is one file: unlink, not rm's walk (an lstat and more for every delete).
    await unlink(p).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
    await this.pruneEmpty(dirname(p));
  }

  // Per-request folders go away with their last file, so the tree does not fill with empty folders.
  // Top-level folders (inputs, artifacts...) stay: removing one races a writer that has just made
  // it and is about to open a file in it (ENOENT under concurrent uploads).
  private async pruneEmpty(dir: string): Promise<void> {
    while (dir.startsWith(this.blobs + sep) && dirname(dir) !== this.blobs) {
      try {
        await rmdir(dir);
      } catch {
        return;
      }
      dir = dirname(dir);
    }
  }

  async list(): Promise<string[]> {
    const entries = await readdir(this.blobs, { recursive: true, withFileTypes: true });
    return entries
      .filter((e) => e.isFile())
      .map((e) => relative(this.blobs, join(e.parentPath, e.name)).split(sep).join('/'));
  }
}
