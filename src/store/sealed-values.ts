/**
 * How an option value sealed by src/core/option-secrets.ts (a password) starts. The store knows
 * only this much of it: a request's sealed values are dropped from its record when it ends.
 */
export const SEALED_PREFIX = 'sealed:v1:';

/** A request's options (as recorded, JSON) without its sealed values; unchanged when it has none. */
export function withoutSealed(json: string | null): string | null {
  if (json === null || !json.includes(SEALED_PREFIX)) return json;
  const options = JSON.parse(json) as Record<string, unknown>;
  const kept = Object.entries(options).filter(
    ([, value]) => !(typeof value === 'string' && value.startsWith(SEALED_PREFIX)),
  );
  return JSON.stringify(Object.fromEntries(kept));
}
