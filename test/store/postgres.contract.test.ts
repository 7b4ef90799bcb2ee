import { afterAll, beforeAll, describe } from 'vitest';
import { openPostgresRecords } from '../../src/store/postgres-records.js';
import { POSTGRES_MISSING, postgresBin, startPostgres, type TestPostgres } from '../support/postgres.js';
import { recordsContract } from './contract/records.js';

describe.skipIf(!postgresBin)(
  `PostgreSQL records (${postgresBin ? 'a throwaway cluster' : POSTGRES_MISSING})`,
  () => {
    let server: TestPostgres | undefined;
    beforeAll(async () => {
      server = await startPostgres();
    });
    afterAll(async () => {
      await server?.stop();
    });

    // Each open is a new pool on the same database: the suite's "other node".
    recordsContract('PostgreSQL', async () => openPostgresRecords(server!.url));
  },
);
