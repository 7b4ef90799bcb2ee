import { spawnSync } from 'node:child_process';

/** Processes (soffice, soffice.bin, the bridge) whose command line still names one of `dirs`. */
export function leftoverOfficeProcesses(dirs: readonly string[]): string[] {
  const lines: string[] = [];
  for (const dir of dirs) {
    const r = spawnSync('pgrep', ['-af', dir], { encoding: 'utf8' });
    lines.push(...r.stdout.split('\n').filter((l) => l && !l.includes('pgrep')));
  }
  return lines;
}

/** Waits (bounded) until nothing mentions `dirs` any more: group kills are delivered asynchronously. */
export async function leftoverOfficeProcessesSettled(dirs: readonly string[]): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    if (leftoverOfficeProcesses(dirs).length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return leftoverOfficeProcesses(dirs);
}
