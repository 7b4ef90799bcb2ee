import { chown, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { FileconvError } from '../errors/index.js';
import { type EngineUser, engineConfinement } from './confine.js';

/**
 * Hands folders the runner made to the engine user, so an engine may write there and nowhere
 * else; `recursive` also hands over what is inside (a profile the converter wrote). A no-op when
 * engines run as the server's own user.
 */
export async function handToEngine(paths: readonly string[], recursive = false): Promise<void> {
  const user = engineConfinement().user;
  if (!user) return;
  for (const path of paths) await chownTree(path, user, recursive);
}

async function chownTree(path: string, user: EngineUser, recursive: boolean): Promise<void> {
  const s = await lstat(path).catch(() => undefined);
  if (!s || s.isSymbolicLink()) return;
  if (s.uid !== user.uid) await chown(path, user.uid, user.gid);
  if (!recursive || !s.isDirectory()) return;
  for (const entry of await readdir(path)) await chownTree(join(path, entry), user, true);
}

/**
 * Takes a file an engine made back from it before it leaves the job folder: the server's own user
 * owns it again, so the engine's user can no longer touch it (the blob store then makes its copy
 * 0600). Anything but a regular file (a link an engine planted to make the server deliver what it
 * points at) is refused.
 */
export async function takeFromEngine(path: string): Promise<void> {
  const s = await lstat(path);
  if (!s.isFile()) throw new FileconvError('CONVERT_FAILED', 'An engine left something other than a file.');
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  // Only a root server hands files to another user, and only root can take them back.
  if (uid === 0 && gid !== undefined && (s.uid !== uid || s.gid !== gid)) await chown(path, uid, gid);
}
