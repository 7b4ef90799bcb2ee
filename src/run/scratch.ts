import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { scratchFolderMode } from './confine.js';
import { privateFolder } from './private-folder.js';

/** Whether a process with this id runs on this machine. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * This process's scratch space for conversions: engine outputs and local copies of remote blobs.
 * It is never shared (blobs are): each process of a data directory (`serve`, `worker`) has its own
 * folder `<parent>/<pid>`, and what stopped processes left is removed when the next one starts.
 */
export class ScratchSpace {
  constructor(readonly root: string) {}

  /** Removes left-overs of processes that stopped, then makes this process's folder. */
  static async forThisProcess(parent: string): Promise<ScratchSpace> {
    await privateFolder(parent, scratchFolderMode());
    for (const entry of await readdir(parent)) {
      const pid = /^\d+$/.test(entry) ? Number(entry) : undefined;
      if (pid !== undefined && pid !== process.pid && alive(pid)) continue;
      await rm(join(parent, entry), { recursive: true, force: true });
    }
    const space = new ScratchSpace(join(parent, String(process.pid)));
    await privateFolder(space.root, scratchFolderMode());
    return space;
  }

  /** A new folder for one conversion, removed by the caller. */
  async dir(name: string): Promise<string> {
    await mkdir(this.root, { recursive: true, mode: scratchFolderMode() });
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

/** The scratch folder of this process in a data directory (under `tmp/`, where it has always been). */
export async function dataDirScratch(dataDir: string): Promise<ScratchSpace> {
  // Engines reach their job folders through the data folder only where they need to (confine.ts).
  await privateFolder(dataDir, scratchFolderMode());
  return ScratchSpace.forThisProcess(join(dataDir, 'tmp'));
}
