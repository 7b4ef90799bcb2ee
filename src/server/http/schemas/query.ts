import { z } from 'zod';
import { OWNER_TOKEN } from '../../access/tokens.js';

/** `?wait=N`: whole seconds from 0 to `maxSeconds`, absent meaning 0 (answer at once). */
export function waitQuerySchema(maxSeconds: number) {
  const rule = { error: `must be a whole number of seconds from 0 to ${maxSeconds}` };
  return z
    .string()
    .regex(/^\d{1,2}$/, rule)
    .refine((s) => Number(s) <= maxSeconds, rule)
    .transform(Number)
    .optional()
    .meta({
      description: `Hold the answer up to this many seconds (0 to ${maxSeconds}) until the request is no longer running.`,
      example: '10',
    });
}

export const RECENT_DEFAULT = 20;
export const RECENT_MAX = 100;

/** `?limit=N` of the recent list: a positive integer, clamped to RECENT_MAX. */
export const recentLimitSchema = z
  .string()
  .regex(/^\d+$/, { error: 'must be a positive integer' })
  .refine((s) => Number(s) >= 1, { error: 'must be a positive integer' })
  .transform((s) => Math.min(Number(s), RECENT_MAX))
  .optional()
  .meta({
    description: `How many requests, newest first (default ${RECENT_DEFAULT}, larger values give ${RECENT_MAX}).`,
    example: '20',
  });

/** The X-Owner-Token header: the token the server issued to this device. */
export const ownerTokenSchema = z
  .string({ error: 'is required: send the X-Owner-Token header the server gave your device' })
  .regex(OWNER_TOKEN, { error: 'is not a token this server issues' })
  .meta({ description: 'The token a write answered in X-Owner-Token.', example: `fco_${'A'.repeat(43)}` });

/** The signed link's query: expiry in unix seconds and the hex HMAC-SHA256 over it. */
export const signedLinkQuerySchema = z.object({
  expires: z
    .string()
    .regex(/^\d{1,12}$/)
    .transform(Number)
    .meta({ description: 'Unix seconds after which the link is refused.', example: '1767225600' }),
  signature: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/)
    .meta({ description: 'Hex HMAC-SHA256 of the file and expiry.', example: 'a'.repeat(64) }),
});
