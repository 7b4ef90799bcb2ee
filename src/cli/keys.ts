import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { EXIT } from '../errors/exit-codes.js';
import { generateApiKey, hashSecret, keyPrefix } from '../identity/keys.js';
import { webhookSecret } from '../server/access/secrets.js';
import { openDataDirRecords } from '../store/sqlite-records.js';
import type { ApiKeyRecord, KeyStore, Records } from '../store/types.js';

const DATA_DIR_HELP = 'data directory of the server (FILECONV_DATA_DIR, default ./fileconv-data)';

/** The same data directory `fileconv serve` uses: flag, then environment, then the default. */
function dataDirOf(flag: string | undefined): string {
  const fromEnv = process.env.FILECONV_DATA_DIR;
  return resolve(flag ?? (fromEnv ? fromEnv : './fileconv-data'));
}

/** Runs `work` on the key store of the data directory, closing the database after. */
async function withRecords<T>(
  dataDir: string | undefined,
  work: (records: Records) => Promise<T>,
): Promise<T> {
  const dir = dataDirOf(dataDir);
  mkdirSync(dir, { recursive: true });
  const records = openDataDirRecords(dir);
  try {
    return await work(records);
  } finally {
    await records.close();
  }
}

const withKeys = <T>(dataDir: string | undefined, work: (keys: KeyStore) => Promise<T>): Promise<T> =>
  withRecords(dataDir, (records) => work(records.keys));

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

function keyJson(k: ApiKeyRecord) {
  return {
    id: k.id,
    label: k.label ?? null,
    prefix: k.prefix,
    created_at: iso(k.createdAt),
    last_used_at: iso(k.lastUsedAt),
    revoked_at: iso(k.revokedAt),
  };
}

function printTable(keys: readonly ApiKeyRecord[]): void {
  if (keys.length === 0) {
    console.log('No API keys yet; make one with `fileconv keys create`.');
    return;
  }
  const rows = keys.map((k) => [
    k.id,
    k.prefix,
    k.label ?? '',
    iso(k.createdAt) ?? '',
    iso(k.lastUsedAt) ?? 'never',
    k.revokedAt === undefined ? 'active' : `revoked ${iso(k.revokedAt)}`,
  ]);
  const header = ['ID', 'PREFIX', 'LABEL', 'CREATED', 'LAST USED', 'STATUS'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const r of [header, ...rows])
    console.log(
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}

export function register(program: Command): void {
  const keys = program
    .command('keys')
    .description('Manage the API keys of a self-hosted server (the account page of `fileconv serve`).');

  keys
    .command('create')
    .description('Make an API key and print it once; only its SHA-256 hash is stored.')
    .option('--label <label>', 'a note to tell keys apart, like who it is for')
    .option('--json', 'print {"id", "key", "label", "created_at"}')
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .action(async (opts: { label?: string; json?: boolean; dataDir?: string }) => {
      const key = generateApiKey();
      const record = {
        id: `key_${randomBytes(9).toString('base64url')}`,
        hash: hashSecret(key),
        prefix: keyPrefix(key),
        label: opts.label,
        createdAt: Date.now(),
      };
      await withKeys(opts.dataDir, (store) => store.createKey(record));
      if (opts.json) {
        console.log(
          JSON.stringify({
            id: record.id,
            key,
            label: record.label ?? null,
            created_at: iso(record.createdAt),
          }),
        );
        return;
      }
      console.log(key);
      console.error(
        `Key ${record.id} made. This is the only time it is shown: keep it now. Send it as "Authorization: Bearer <key>".`,
      );
    });

  keys
    .command('list')
    .description('List API keys: id, label, prefix, created, last used, revoked.')
    .option('--json', 'print a JSON array')
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .action(async (opts: { json?: boolean; dataDir?: string }) => {
      const all = await withKeys(opts.dataDir, (store) => store.listKeys());
      if (opts.json) console.log(JSON.stringify(all.map(keyJson), null, 2));
      else printTable(all);
    });

  keys
    .command('revoke')
    .description('Revoke an API key; a running server refuses it from its next request on.')
    .argument('<id>', 'the key id from `fileconv keys list`')
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .action(async (id: string, opts: { dataDir?: string }) => {
      const found = await withKeys(opts.dataDir, (store) => store.revokeKey(id, Date.now()));
      if (!found) {
        console.error(`fileconv keys revoke: no key with id "${id}"; see \`fileconv keys list\`.`);
        process.exitCode = EXIT.FAILED;
        return;
      }
      console.log(`Revoked ${id}.`);
    });

  keys
    .command('webhook-secret')
    .description(
      'Print the secret webhook receivers verify X-Fileconv-Signature with (shared by all nodes; FILECONV_WEBHOOK_SECRET overrides it).',
    )
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .action(async (opts: { dataDir?: string }) => {
      console.log(
        await withRecords(opts.dataDir, (records) => webhookSecret(records.secrets, dataDirOf(opts.dataDir))),
      );
    });
}
