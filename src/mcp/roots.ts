import { lstat, mkdir, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { FileconvError } from '../errors/index.js';

/**
 * The folders an agent may read and write through the stdio server. A path is judged by where it
 * really is (symbolic links and `..` resolved), so a link inside a root that points outside is
 * outside; relative paths are taken from the first root.
 */
export class Roots {
  private constructor(readonly dirs: readonly string[]) {}

  static async open(dirs: readonly string[]): Promise<Roots> {
    const real: string[] = [];
    for (const dir of dirs) {
      const path = await realpath(resolve(dir)).catch(() => undefined);
      if (!path || !(await stat(path)).isDirectory())
        throw new FileconvError('FILE_NOT_FOUND', `--root ${dir} is not a folder.`);
      real.push(path);
    }
    return new Roots(real);
  }

  private within(path: string): boolean {
    return this.dirs.some((root) => {
      const rel = relative(root, path);
      return rel === '' || (rel.split(sep)[0] !== '..' && !isAbsolute(rel));
    });
  }

  private refused(path: string): FileconvError {
    return new FileconvError(
      'PATH_NOT_ALLOWED',
      `${path} is outside the folders this server may use (${this.dirs.join(', ')}); start it with --root to allow another.`,
    );
  }

  private place(path: string): string {
    return resolve(this.dirs[0]!, path);
  }

  /** An existing file inside a root, as its real path. */
  async file(path: string): Promise<string> {
    const real = await realpath(this.place(path)).catch(() => undefined);
    if (real === undefined) {
      // Said the same way whether or not it exists outside, so the answer tells nothing of outside.
      if (!this.within(this.place(path))) throw this.refused(path);
      throw new FileconvError('FILE_NOT_FOUND', `${path} does not exist.`);
    }
    if (!this.within(real)) throw this.refused(path);
    if (!(await stat(real)).isFile()) throw new FileconvError('FILE_NOT_FOUND', `${path} is not a file.`);
    return real;
  }

  /** A folder inside a root for outputs, made if missing, as its real path. */
  async folder(path: string): Promise<string> {
    const wanted = this.place(path);
    // The deepest part that exists decides where a new folder would really be made.
    let existing = wanted;
    while ((await lstat(existing).catch(() => undefined)) === undefined) existing = dirname(existing);
    const realExisting = await realpath(existing);
    if (!this.within(realExisting)) throw this.refused(path);
    await mkdir(wanted, { recursive: true });
    const real = await realpath(wanted);
    if (!this.within(real)) throw this.refused(path);
    if (!(await stat(real)).isDirectory())
      throw new FileconvError('INVALID_REQUEST', `${path} is not a folder.`);
    return real;
  }
}
