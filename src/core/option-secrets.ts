import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { loadConverters } from '../engine/registry.js';
import { FileconvError } from '../errors/index.js';
import { declaredOptions } from '../plan/options.js';
import { SEALED_PREFIX } from '../store/sealed-values.js';

const SEALED = SEALED_PREFIX;

/** The names of the options some engine declares secret (passwords). */
async function secretNames(): Promise<Set<string>> {
  const specs = declaredOptions(await loadConverters());
  return new Set([...specs].filter(([, spec]) => spec.secret).map(([name]) => name));
}

/**
 * Seals the secret values of a request's options (passwords) before they are recorded, and opens
 * them for the worker that runs it: the database, its backups and every other node's view of the
 * request hold only AES-256-GCM ciphertext, and the store drops it when the request ends
 * (src/store/sealed-values.ts). The key is never in the database: it is derived from the
 * deployment's signing secret (FILECONV_SIGNING_SECRET, the same on every node), or, without one,
 * made at random for this process alone, so that a password lives no longer than the process
 * that was given it (a request still queued when it stops fails, asking for the password again).
 */
export class OptionSecrets {
  private readonly key: Buffer;

  /** `deploymentSecret`: the signing secret every node is given; none: a key of this process's. */
  constructor(deploymentSecret?: string) {
    const ikm = deploymentSecret === undefined ? randomBytes(32) : Buffer.from(deploymentSecret, 'utf8');
    this.key = Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), 'fileconv option secrets', 32));
  }

  async seal(options: Record<string, unknown> | undefined): Promise<Record<string, unknown> | undefined> {
    if (!options) return options;
    const names = await secretNames();
    return Object.fromEntries(
      Object.entries(options).map(([name, value]) => [
        name,
        names.has(name) ? this.sealValue(String(value)) : value,
      ]),
    );
  }

  async open(options: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    if (!options) return {};
    const names = await secretNames();
    return Object.fromEntries(
      Object.entries(options).map(([name, value]) => [name, names.has(name) ? this.openValue(value) : value]),
    );
  }

  private sealValue(value: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return SEALED + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  private openValue(value: unknown): string {
    if (typeof value !== 'string' || !value.startsWith(SEALED)) throw unreadable();
    const raw = Buffer.from(value.slice(SEALED.length), 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw unreadable();
    }
  }
}

function unreadable(): FileconvError {
  return new FileconvError(
    'CONVERT_FAILED',
    'A password given with the request could not be read back: it was given to a server process that has stopped, or to a node with another FILECONV_SIGNING_SECRET; submit it again.',
  );
}
