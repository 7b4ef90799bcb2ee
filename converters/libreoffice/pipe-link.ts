import { existsSync, lstatSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The UNO bridge looks for LibreOffice's pipe in /tmp (LibreOffice's fixed place); a confined
 * office makes it in its own /tmp, which is the instance's pipe folder outside. Once the pipe
 * appears there, a link of the same name in /tmp leads the bridge to it.
 */
export function linkPipeWhenReady(
  pipeDir: string,
  pipe: string,
  timeoutMs: number,
  onLinked: (link: string) => void,
): { stop(): void } {
  const pattern = new RegExp(`^OSL_PIPE_(\\d+_)?${pipe}$`);
  const poll = setInterval(() => {
    const name = readdirSync(pipeDir).find((n) => pattern.test(n));
    if (!name) return;
    clearInterval(poll);
    const link = join('/tmp', name);
    try {
      symlinkSync(join(pipeDir, name), link);
      onLinked(link);
    } catch {
      // taken (a name of 96 random bits): the bridge fails to connect and says so
    }
  }, 50);
  const limit = setTimeout(() => clearInterval(poll), timeoutMs);
  return {
    stop: () => {
      clearInterval(poll);
      clearTimeout(limit);
    },
  };
}

/**
 * Removes pipe links of pools whose owner died without cleaning up (SIGKILL): their instance
 * folder is gone, so the link leads nowhere.
 */
export function sweepDeadPipeLinks(): void {
  const ours = /^OSL_PIPE_(\d+_)?fileconv_\d+_[0-9a-f]{12}$/;
  for (const name of readdirSync('/tmp').filter((n) => ours.test(n))) {
    const link = join('/tmp', name);
    try {
      if (lstatSync(link).isSymbolicLink() && !existsSync(link)) rmSync(link, { force: true });
    } catch {
      // gone meanwhile
    }
  }
}
