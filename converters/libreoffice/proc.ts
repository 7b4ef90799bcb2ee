import { readdirSync, readFileSync } from 'node:fs';

/** Process facts read from /proc (Linux); elsewhere these answer "nothing known". */

interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  pgrp: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may itself hold spaces or parentheses: split at the last ')'.
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const [state, , pgrp] = text.slice(close + 2).split(' ');
    return { pid, comm, state: state ?? '', pgrp: Number(pgrp) };
  } catch {
    return undefined;
  }
}

/** Live (not zombie) processes of a process group. */
export function groupMembers(pgid: number): ProcStat[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const members: ProcStat[] = [];
  for (const name of pids) {
    const stat = readStat(Number(name));
    if (stat && stat.pgrp === pgid && stat.state !== 'Z') members.push(stat);
  }
  return members;
}

/** True when the process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

/** Resident memory of one process in bytes (VmRSS), 0 when unknown. */
function rssBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kib ? Number(kib) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident memory of a whole process group in bytes. */
export function groupRssBytes(pgid: number): number {
  return groupMembers(pgid).reduce((sum, p) => sum + rssBytes(p.pid), 0);
}

/** SIGKILL to a whole process group; a group already gone is fine. */
export function killGroup(pgid: number | undefined): void {
  if (!pgid) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}
