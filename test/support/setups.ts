import { it } from 'vitest';
import type { RawServeOptions } from '../../src/server/config.js';
import { POSTGRES_MISSING, postgresBin, startPostgres } from './postgres.js';
import { startTestS3 } from './s3.js';

/**
 * The two ways a server keeps its records and files: the embedded default (SQLite and files in
 * the data directory) and the distributed one (PostgreSQL with its pg-boss queue, an S3 bucket).
 * The HTTP suites run unchanged on each; only where the server keeps things differs.
 */
export type SetupName = 'sqlite-disk' | 'postgres-s3';

export const SETUP_TITLES: Record<SetupName, string> = {
  'sqlite-disk': 'SQLite + disk',
  'postgres-s3': 'PostgreSQL + S3',
};

/** Why a setup cannot run on this machine, for describe.skipIf titles; undefined when it can. */
export function setupMissing(name: SetupName): string | undefined {
  return name === 'postgres-s3' && !postgresBin ? POSTGRES_MISSING : undefined;
}

export interface Setup {
  name: SetupName;
  /**
   * The store settings of a fresh, empty place for one server: nothing for the embedded setup
   * (the server's new data directory is that place), a new database and a new bucket prefix
   * for the distributed one, so servers of one file never see each other's requests or quotas.
   */
  stores(): Promise<Stores>;
  /**
   * The environment a `fileconv serve` or `fileconv worker` child process needs to use `stores`
   * (the database URL, the storage URL, the S3 endpoint and credentials); empty for SQLite + disk.
   */
  processEnv(stores: Stores): Record<string, string>;
  stop(): Promise<void>;
}

export type Stores = Pick<RawServeOptions, 'database' | 'storage'>;

/** Starts what the setup needs: for PostgreSQL + S3, one throwaway cluster and one s3rver. */
export async function startSetup(name: SetupName): Promise<Setup> {
  if (name === 'sqlite-disk')
    return { name, stores: async () => ({}), processEnv: () => ({}), stop: async () => {} };
  const started = await Promise.allSettled([startPostgres(), startTestS3()]);
  const [pgStart, s3Start] = started;
  if (pgStart.status === 'rejected' || s3Start.status === 'rejected') {
    // The one that did start is stopped, so a failed start leaves no server behind.
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
    throw pgStart.status === 'rejected' ? pgStart.reason : (s3Start as PromiseRejectedResult).reason;
  }
  const [pg, s3] = [pgStart.value, s3Start.value];
  // The server in this process reads the S3 endpoint and credentials from the environment, as
  // `fileconv serve` does; they are put back when the setup stops.
  const saved = Object.fromEntries(Object.keys(s3.env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, s3.env);
  let places = 0;
  return {
    name,
    async stores() {
      places += 1;
      const database = places === 1 ? pg.url : await pg.createDatabase(`fileconv_${places}`);
      return { database, storage: `s3://${s3.bucket}/server-${places}` };
    },
    processEnv(stores) {
      return {
        ...s3.env,
        ...(stores.database ? { FILECONV_DATABASE_URL: stores.database } : {}),
        ...(stores.storage ? { FILECONV_STORAGE: stores.storage } : {}),
      };
    },
    async stop() {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      await Promise.all([s3.stop(), pg.stop()]);
    },
  };
}

/**
 * `it` for an end-to-end test whose subject never reaches the stores (a page's layout, a tool's
 * options, an engine's output): it runs on SQLite + disk and shows as skipped on the other setups,
 * where it would repeat the same browser and engine work. What the stores hold or serve (downloads,
 * several inputs, keys, quotas, a password kept out of them) is tested on every setup.
 */
export function storeBlind(setupName: SetupName): typeof it {
  return setupName === 'sqlite-disk' ? it : (it.skip as typeof it);
}
