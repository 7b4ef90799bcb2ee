import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * A throwaway PostgreSQL cluster for tests: Debian's server binaries, initdb in a temp folder,
 * the server on a free loopback port with its socket in that folder. initdb refuses to run as
 * root, so as root the cluster belongs to the `postgres` user Debian's package makes.
 */

const run = promisify(execFile);

/** The newest of Debian's PostgreSQL bin folders (/usr/lib/postgresql/<major>/bin), if any. */
function findPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const major of majors) {
    const bin = join(root, major, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'))) return bin;
  }
  return undefined;
}

export const postgresBin = findPostgresBin();
/** Why PostgreSQL tests skip, for it.skipIf / describe.skipIf titles. */
export const POSTGRES_MISSING =
  'PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql, or fileconv doctor --install --with-test-tools)';

interface RunAs {
  uid: number;
  gid: number;
}

/** Root cannot run initdb: the cluster is run by an unprivileged system user. */
async function unprivilegedUser(): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number((await run('id', ['-u', name])).stdout.trim());
      const gid = Number((await run('id', ['-g', name])).stdout.trim());
      if (uid > 0) return { uid, gid };
    } catch {}
  }
  throw new Error('running as root and no unprivileged user (postgres, nobody) to run PostgreSQL as');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

/**
 * The test process holds the watchdog's stdin open: when it ends, even by a crash, the watchdog
 * sees end-of-file, stops the server and removes its folder, so no cluster outlives its tests.
 */
function watchOver(pid: number | undefined, root: string): ChildProcess {
  const script = `cat >/dev/null
kill -INT ${pid} 2>/dev/null
while kill -0 ${pid} 2>/dev/null; do sleep 0.2; done
rm -rf '${root}'`;
  const watchdog = spawn('sh', ['-c', script], { stdio: ['pipe', 'ignore', 'ignore'] });
  // Neither the watchdog nor its pipe keeps the test process alive.
  watchdog.unref();
  (watchdog.stdin as Socket | null)?.unref();
  return watchdog;
}

export interface TestPostgres {
  /** postgres:// URL of the test database. */
  url: string;
  /** A URL of another fresh database on the same server (for tests that need a clean one). */
  createDatabase(name: string): Promise<string>;
  /** Stops the server and removes the cluster folder. */
  stop(): Promise<void>;
}

const USER = 'fileconv';

async function waitUntilReady(server: ChildProcess, port: number, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`postgres exited with ${server.exitCode}:\n${log()}`);
    const client = new pg.Client({ host: '127.0.0.1', port, user: USER, database: 'postgres' });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections: ${err}\n${log()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Starts a fresh cluster with database `fileconv`; call stop() in afterAll. */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBin;
  if (!bin) throw new Error(POSTGRES_MISSING);
  const root = await mkdtemp(join(tmpdir(), 'fileconv-pg-'));
  const data = join(root, 'data');
  const socketDir = join(root, 'socket');
  await mkdir(socketDir);
  const as = await unprivilegedUser();
  if (as) {
    chownSync(root, as.uid, as.gid);
    chownSync(socketDir, as.uid, as.gid);
  }
  const env = { ...process.env, HOME: root, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' };
  await run(
    join(bin, 'initdb'),
    ['-D', data, '-U', USER, '--auth=trust', '--encoding=UTF8', '--no-sync', '--no-instructions'],
    { env, cwd: root, ...as },
  );
  const port = await freePort();
  // Durability is not what a throwaway cluster is for: skipping fsync keeps the tests quick.
  const server = spawn(
    join(bin, 'postgres'),
    [
      '-D',
      data,
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-k',
      socketDir,
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'shared_buffers=16MB',
      '-c',
      'max_connections=200',
    ],
    { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'], ...as },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  server.stdout?.on('data', keep);
  server.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const watchdog = watchOver(server.pid, root);

  const stop = async () => {
    watchdog.kill('SIGKILL');
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGINT'); // fast shutdown: ends sessions, then exits
      const killer = setTimeout(() => server.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    await rm(root, { recursive: true, force: true });
  };

  const base = `postgres://${USER}@127.0.0.1:${port}`;
  const createDatabase = async (name: string) => {
    const client = new pg.Client({ connectionString: `${base}/postgres` });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    } finally {
      await client.end();
    }
    return `${base}/${name}`;
  };

  try {
    await waitUntilReady(server, port, () => output);
    const url = await createDatabase('fileconv');
    return { url, createDatabase, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
