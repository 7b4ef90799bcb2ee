import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SecretStore } from '../../store/types.js';

/**
 * Secrets every node shares, kept by the SecretStore (the database). Data directories made before
 * the database kept them hold them in files; those are adopted on first start, so links already
 * handed out and webhook receivers already set up keep working.
 */
export const SIGNING_KEY_FILE = 'signing.key';
export const WEBHOOK_KEY_FILE = 'webhook.key';
export const SIGNING_SECRET_ENV = 'FILECONV_SIGNING_SECRET';
export const WEBHOOK_SECRET_ENV = 'FILECONV_WEBHOOK_SECRET';
const SIGNING_SECRET = 'signing';
const WEBHOOK_SECRET = 'webhook';

/** The 32-byte secret of an older data directory's key file, if there is one. */
async function legacyKeyFile(dataDir: string, file: string): Promise<Buffer | undefined> {
  const hex = await readFile(join(dataDir, file), 'utf8').then(
    (text) => text.trim(),
    () => '',
  );
  return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

async function sharedSecret(
  secrets: SecretStore,
  name: string,
  dataDir: string | undefined,
  file: string,
): Promise<Buffer> {
  const legacy = dataDir === undefined ? undefined : await legacyKeyFile(dataDir, file);
  return secrets.secret(name, legacy);
}

/** The link-signing key: FILECONV_SIGNING_SECRET when set, else the shared one. */
export async function signingSecret(secrets: SecretStore, dataDir?: string): Promise<Buffer> {
  const given = process.env[SIGNING_SECRET_ENV];
  if (given) return Buffer.from(given, 'utf8');
  return sharedSecret(secrets, SIGNING_SECRET, dataDir, SIGNING_KEY_FILE);
}

/** The webhook signing secret as receivers use it: FILECONV_WEBHOOK_SECRET, else the hex text of the shared one. */
export async function webhookSecret(secrets: SecretStore, dataDir?: string): Promise<string> {
  const given = process.env[WEBHOOK_SECRET_ENV];
  if (given) return given;
  return (await sharedSecret(secrets, WEBHOOK_SECRET, dataDir, WEBHOOK_KEY_FILE)).toString('hex');
}

/** What `fileconv doctor` says about the webhook secret, without showing it. */
export function webhookSecretStatus(): string {
  if (process.env[WEBHOOK_SECRET_ENV]) return `set by ${WEBHOOK_SECRET_ENV}`;
  return `kept in the database (made on the first start of fileconv serve), or set ${WEBHOOK_SECRET_ENV}`;
}
