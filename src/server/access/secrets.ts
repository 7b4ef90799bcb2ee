import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileconvError } from '../../errors/index.js';
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

/** Words of the example values deployments ship with, which a real secret never contains. */
const PLACEHOLDER =
  /change[-_ ]?me|replace[-_ ]?me|placeholder|example|your[-_ ]?secret|secret[-_ ]?here|xxxxxx/i;
const HEX = /^[0-9a-f]+$/i;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const HOW = 'set it to what `openssl rand -hex 32` prints';

/**
 * Why `value` cannot sign links, or undefined when it can: it must carry at least 32 random bytes,
 * as 64 hex digits, 43 base64 characters or any other text of 64 characters, and be neither a
 * known placeholder nor a short run repeated. The message never shows the value.
 */
export function weakSigningSecret(value: string): string | undefined {
  const text = value.trim();
  if (PLACEHOLDER.test(text)) return `${SIGNING_SECRET_ENV} is a placeholder, not a secret: ${HOW}.`;
  const needed = HEX.test(text) ? 64 : BASE64.test(text) ? 43 : 64;
  if (text.length < needed || repeats(text))
    return `${SIGNING_SECRET_ENV} must hold at least 32 random bytes (${text.length} characters given): ${HOW}.`;
  return undefined;
}

/** Whether `text` is one run of at most a quarter of its length, repeated. */
function repeats(text: string): boolean {
  for (let period = 1; period <= text.length / 4; period++)
    if (
      text ===
      text
        .slice(0, period)
        .repeat(Math.ceil(text.length / period))
        .slice(0, text.length)
    )
      return true;
  return false;
}

/** FILECONV_SIGNING_SECRET, checked: undefined when unset; a weak value is refused (exit code 2). */
export function deploymentSecret(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env[SIGNING_SECRET_ENV];
  if (!given) return undefined;
  const weak = weakSigningSecret(given);
  if (weak) throw new FileconvError('INVALID_REQUEST', weak);
  return given;
}

/** The link-signing key: FILECONV_SIGNING_SECRET when set, else the shared one. */
export async function signingSecret(secrets: SecretStore, dataDir?: string): Promise<Buffer> {
  const given = deploymentSecret();
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
