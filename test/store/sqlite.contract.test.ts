import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openSqliteRecords } from '../../src/store/sqlite-records.js';
import { recordsContract } from './contract/records.js';

const dir = mkdtempSync(join(tmpdir(), 'fileconv-sqlite-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

recordsContract('SQLite', async () => openSqliteRecords(join(dir, 'fileconv.db')));
