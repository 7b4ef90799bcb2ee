import { spawnSync } from 'node:child_process';
import { lstatSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { fontconfigFolders } from '../fonts/fontconfig.js';
import { findBinary } from './binary.js';

/**
 * Filesystem and user confinement of engine processes, on top of the limits in sandbox.ts:
 * - a mount namespace (bubblewrap) in which the engine sees the system's programs and settings
 *   read-only (/usr, /etc and the /lib, /bin links), a private /tmp, a minimal /dev and a /proc
 *   of its own process ids (no other process, the server's included), and of the rest of the
 *   disk only the folders its job hands it;
 * - when the server runs as root, an unprivileged user of its own (the `fileconv-engine`
 *   account `doctor --install` creates, or a fixed uid when there is none), with no capabilities,
 *   so even inside its namespace a parser exploit cannot raise its rights or write outside the
 *   folders given to it.
 */
export interface EngineAccess {
  /** Folders the engine may read and write: its job folder (input, work and output folders). */
  writable: readonly string[];
  /** Files or folders it may only read (a policy file, a script shipped with fileconv). */
  readable?: readonly string[];
  /**
   * A folder to serve as the engine's /tmp instead of an empty private one: where a program
   * outside must reach the engine's sockets (LibreOffice's UNO pipe lives in /tmp).
   */
  tmp?: string;
}

export interface EngineUser {
  uid: number;
  gid: number;
  /** The account name, or `uid N` when no account exists. */
  name: string;
}

export interface Confinement {
  /** bubblewrap works here: engines get a mount namespace. */
  mountNamespace: boolean;
  /** Who engines run as when the server is root; undefined when they run as the server's own user. */
  user?: EngineUser;
  /** Why a part is not in effect, for doctor and the logs. */
  notes: string[];
  bwrapPath?: string;
  setprivPath?: string;
}

/** The account `doctor --install` creates for engines. */
export const ENGINE_ACCOUNT = 'fileconv-engine';
/** Used when the account does not exist: far from the ranges Debian gives to system and human users. */
export const FALLBACK_ENGINE_ID = 64_123;

/** System folders every engine reads: programs, libraries, fonts and their settings. */
const SYSTEM_READ_ONLY = ['/usr', '/etc'];
/** Top-level names that are links into /usr on a merged-/usr system, or folders of their own. */
const SYSTEM_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/**
 * System data outside /usr that engines read and that holds nothing of anyone's: fontconfig's
 * cache, and Debian's Ghostscript CMaps and font maps (without them pdfwrite loses the Unicode of
 * every text it rewrites: a compressed PDF's words come out as shifted letters).
 */
const OPTIONAL_READ_ONLY = ['/var/cache/fontconfig', '/var/lib/ghostscript'];

let cached: Confinement | undefined;

/** Forget the probe (tests that change the environment). */
export function resetEngineConfinement(): void {
  cached = undefined;
}

/** What confinement is in effect; probed once per process (one tiny spawn), then cached. */
export function engineConfinement(): Confinement {
  cached ??= probeConfinement();
  return cached;
}

/** The account's ids from /etc/passwd, or the fixed fallback id. */
function engineUser(): EngineUser {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , uid, gid] = line.split(':');
      if (name === ENGINE_ACCOUNT && uid && gid) return { uid: Number(uid), gid: Number(gid), name };
    }
  } catch {
    // no passwd file: the fallback id
  }
  return { uid: FALLBACK_ENGINE_ID, gid: FALLBACK_ENGINE_ID, name: `uid ${FALLBACK_ENGINE_ID}` };
}

function probeConfinement(): Confinement {
  const notes: string[] = [];
  // FILECONV_ENGINE_SANDBOX=off turns off every layer (sandbox.ts), this one included.
  for (const name of ['FILECONV_ENGINE_CONFINE', 'FILECONV_ENGINE_SANDBOX']) {
    const setting = (process.env[name] ?? '').trim().toLowerCase();
    if (['off', '0', 'false', 'no'].includes(setting))
      return { mountNamespace: false, notes: [`confinement disabled by ${name}=off`] };
  }
  const root = process.getuid?.() === 0;
  const setprivPath = root ? findBinary(['setpriv']) : undefined;
  const user = root && setprivPath ? engineUser() : undefined;
  if (root && !setprivPath) notes.push('setpriv (util-linux) not found: engines run as root');
  if (user && user.name !== ENGINE_ACCOUNT)
    notes.push(
      `no ${ENGINE_ACCOUNT} account (fileconv doctor --install creates it): engines run as ${user.name}`,
    );
  const bwrapPath = findBinary(['bwrap']);
  let mountNamespace = false;
  if (!bwrapPath) notes.push('bubblewrap (bwrap) not found: engines see the whole file system');
  else {
    const probe = wrap(bwrapPath, setprivPath, user, { writable: [] }, ['true']);
    mountNamespace = succeeds(probe);
    if (!mountNamespace) notes.push(namespaceRefusal(probe));
  }
  return { mountNamespace, user, notes, bwrapPath, setprivPath };
}

function succeeds(argv: readonly string[]): boolean {
  const [head, ...rest] = argv;
  return spawnSync(head as string, rest, { stdio: 'ignore', timeout: 10_000 }).status === 0;
}

/**
 * Why bwrap refused, for doctor. A container that masks parts of /proc (podman's and Docker's
 * defaults) lets bwrap make every namespace but refuses it a /proc of its own, since the kernel
 * only mounts a new /proc where the existing one is fully visible. A namespace with the
 * container's /proc instead would show engines the server's /proc/<pid>/root and environ, which
 * undoes the rest, so that is named rather than used.
 */
function namespaceRefusal(probe: readonly string[]): string {
  const at = probe.indexOf('--proc');
  const withoutProc = at < 0 ? probe : [...probe.slice(0, at), ...probe.slice(at + 2)];
  if (at >= 0 && succeeds(withoutProc))
    return (
      "bwrap cannot mount a /proc of the engines' own (this container masks parts of /proc: run it with " +
      '--security-opt unmask=/proc/* on podman, --security-opt systempaths=unconfined on Docker): ' +
      'engines see the whole file system'
    );
  return 'bwrap cannot make a mount namespace here (user namespaces off?): engines see the whole file system';
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The bwrap arguments for a namespace holding the system read-only and the given folders. */
function namespaceArgs(access: EngineAccess): string[] {
  // Its own process ids too: where an engine runs as the server's user (a container without a
  // user of its own for engines), /proc would otherwise show it the server's environment
  // (/proc/<pid>/environ: the signing secret, database and storage credentials).
  const args = [
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-pid',
    '--unshare-cgroup-try',
    '--die-with-parent',
  ];
  for (const dir of SYSTEM_READ_ONLY) if (exists(dir)) args.push('--ro-bind', dir, dir);
  for (const link of SYSTEM_LINKS) {
    if (isLink(link)) args.push('--symlink', readlinkSync(link), link);
    else if (exists(link)) args.push('--ro-bind', link, link);
  }
  // Chromium-based engines (calibre's Qt WebEngine) need a shared memory folder they may write.
  args.push('--proc', '/proc', '--dev', '/dev', '--perms', '1777', '--tmpfs', '/dev/shm');
  if (access.tmp) args.push('--bind', access.tmp, '/tmp');
  else args.push('--perms', '1777', '--tmpfs', '/tmp');
  // The engine's FONTCONFIG_FILE lives in the temp folder, outside what a namespace shows.
  const readable = [...(access.readable ?? []), ...fontconfigFolders()];
  const optional = OPTIONAL_READ_ONLY.filter(exists);
  const paths = [...optional, ...readable, ...access.writable];
  // bwrap would give the folders above a bound path the modes of the real ones (often 0700 root);
  // traversable empty folders let the engine user reach what it is given, and show nothing else.
  const above = new Set(paths.flatMap(ancestors));
  for (const dir of [...above].sort()) {
    if (dir !== '/tmp' && !underSystem(dir)) args.push('--perms', '0755', '--dir', dir);
  }
  for (const path of optional) args.push('--ro-bind', path, path);
  for (const path of readable) if (!underSystem(path)) args.push('--ro-bind', path, path);
  for (const path of access.writable) args.push('--bind', path, path);
  return args;
}

function underSystem(path: string): boolean {
  return SYSTEM_READ_ONLY.some((dir) => path === dir || path.startsWith(`${dir}/`));
}

/** `/a/b/c` -> `/a`, `/a/b`. */
function ancestors(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return parts.slice(0, -1).map((_, i) => `/${parts.slice(0, i + 1).join('/')}`);
}

/** setpriv arguments that switch to the engine user and drop every capability for good. */
function dropRootArgs(setpriv: string, user: EngineUser): string[] {
  return [
    setpriv,
    `--reuid=${user.uid}`,
    `--regid=${user.gid}`,
    '--clear-groups',
    '--inh-caps=-all',
    '--bounding-set=-all',
    '--no-new-privs',
    '--',
  ];
}

function wrap(
  bwrap: string | undefined,
  setpriv: string | undefined,
  user: EngineUser | undefined,
  access: EngineAccess,
  command: string[],
): string[] {
  const inner = user && setpriv ? [...dropRootArgs(setpriv, user), ...command] : command;
  return bwrap ? [bwrap, ...namespaceArgs(access), '--', ...inner] : inner;
}

/**
 * `command` (a program and its arguments, possibly already wrapped in prlimit) wrapped in the
 * confinement in effect: bwrap with the job's folders, then setpriv to the engine user. Without
 * `access` (a caller that cannot name its job folder, such as a converter test calling a
 * converter directly) the command is returned as it is. The wrappers exec in place or wait for
 * their one child in the same process group, so killing the group still kills the engine.
 */
export function confineCommand(command: readonly string[], access?: EngineAccess): string[] {
  if (!access) return [...command];
  const c = engineConfinement();
  return wrap(c.mountNamespace ? c.bwrapPath : undefined, c.setprivPath, c.user, access, [...command]);
}

/**
 * `command` run as the engine user, without a namespace: for fileconv's own helpers that must
 * share an engine's identity (the UNO bridge, since LibreOffice names its pipe after the user).
 */
export function asEngineUser(command: readonly string[]): string[] {
  const c = engineConfinement();
  return wrap(undefined, c.setprivPath, c.user, { writable: [] }, [...command]);
}

/**
 * A temp folder the engine user can reach: the server's own (TMPDIR) when every folder on its path
 * lets that user through, else /tmp. A process that runs as the engine user outside the mount
 * namespace (LibreOffice's bridge) finds nothing under a TMPDIR made private to the server
 * (`mktemp -d` makes it 0700): the office pool could not start and every document waited a minute.
 */
export function engineReachableTmpdir(): string {
  const user = engineConfinement().user;
  const own = tmpdir();
  if (!user) return own;
  for (let dir = own; ; dir = dirname(dir)) {
    const s = statSync(dir, { throwIfNoEntry: false });
    const passes = s && (s.uid === user.uid ? s.mode & 0o100 : s.mode & 0o001);
    if (!passes) return '/tmp';
    if (dirname(dir) === dir) return own;
  }
}

/**
 * The mode of the folders above job folders (the data directory, its scratch space): the server's
 * alone, except where engines run as their own user without a mount namespace and must pass
 * through them to reach their job folder (search only: they can list nothing there, and every
 * file the server keeps is 0600).
 */
export function scratchFolderMode(): number {
  const c = engineConfinement();
  return c.user && !c.mountNamespace ? 0o711 : 0o700;
}

/** One line for doctor and the first conversion's timeline. */
export function describeConfinement(): string {
  const c = engineConfinement();
  const fs = c.mountNamespace ? 'own mount namespace (job folder only)' : 'whole file system visible';
  const who = c.user ? `as ${c.user.name}` : `as the server's user (uid ${process.getuid?.() ?? '?'})`;
  return `${fs}, ${who}`;
}
