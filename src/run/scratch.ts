import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * This node's scratch space for conversions: engine outputs and local copies of remote blobs. It
 * is never shared between nodes (blobs are), and what a stopped process left is cleared at start.
 */
export class ScratchSpace {
  constructor(readonly root: string) {}

  /** Empties the folder (left-overs of a process that stopped) and makes sure it exists. */
  async clear(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
    await mkdir(this.root, { recursive: true });
  }

  /** A new folder for one conversion, removed by the caller. */
  async dir(name: string): Promise<string> {
    await mkdir(this.root, { recursive: true });
    return mkdtemp(join(this.root, `${name.replace(/[^A-Za-z0-9_-]/g, '_')}-`));
  }

  /** Runs `fn` with a new folder, removed afterwards whatever happens. */
  async withDir<T>(name: string, fn: (dir: string) => Promise<T>): Promise<T> {
    const dir = await this.dir(name);
    try {
      return await fn(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** The scratch folder of a data directory (where it has always been). */
export function dataDirScratch(dataDir: string): ScratchSpace {
  return new ScratchSpace(join(dataDir, 'tmp'));
}
