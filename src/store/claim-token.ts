import { createHash } from 'node:crypto';

/**
 * What the records keep of a claim's token: its SHA-256, so someone who reads the database (a
 * backup, a read-only role) still cannot send heartbeats for a claim that is not theirs.
 */
export function claimTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
