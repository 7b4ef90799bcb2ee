import { chmod, mkdir, stat } from 'node:fs/promises';

/**
 * Makes `path` (and any missing parent) a folder of the server's user alone, 0700 by default; one
 * that exists and that this user owns is narrowed to `mode` (data folders made before were 0755,
 * letting every local user read uploads and results).
 */
export async function privateFolder(path: string, mode = 0o700): Promise<void> {
  await mkdir(path, { recursive: true, mode });
  const s = await stat(path);
  if (s.uid === process.getuid?.() && (s.mode & 0o777) !== mode) await chmod(path, mode);
}
