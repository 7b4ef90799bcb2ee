import { randomBytes } from 'node:crypto';
import { access, chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Secrets kept in the data directory, beside the database. */
export const SIGNING_KEY_FILE = 'signing.key';
export const WEBHOOK_KEY_FILE = 'webhook.key';
export const WEBHOOK_SECRET_ENV = 'FILECONV_WEBHOOK_SECRET';

/** A secret of the data directory: made on first start (32 random bytes, mode 0600), read after. */
export async function dataSecret(dataDir: string, name: string): Promise<Buffer> {
  const file = join(dataDir, name);
  try {
    const hex = (await readFile(file, 'utf8')).trim();
    if (/^[0-9a-f]{64}$/.test(hex)) return Buffer.from(hex, 'hex');
  } catch {}
  const secret = randomBytes(32);
  await writeFile(file, `${secret.toString('hex')}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return secret;
}

/** The webhook signing secret of webhook.key as receivers use it: the hex text as written. */
export async function webhookSecret(dataDir: string): Promise<string> {
  return (await dataSecret(dataDir, WEBHOOK_KEY_FILE)).toString('hex');
}

/** What `fileconv doctor` says about the webhook secret, without showing it. */
export async function webhookSecretStatus(dataDir: string): Promise<string> {
  if (process.env[WEBHOOK_SECRET_ENV]) return `set by ${WEBHOOK_SECRET_ENV}`;
  const file = join(dataDir, WEBHOOK_KEY_FILE);
  return access(file).then(
    () => `kept in ${file}`,
    () => `not made yet: fileconv serve writes ${file} on its first start, or set ${WEBHOOK_SECRET_ENV}`,
  );
}
