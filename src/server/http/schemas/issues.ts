import type { z } from 'zod';
import { type ErrorCode, FileconvError } from '../../../errors/index.js';

/**
 * One sentence for the first problem zod found, naming where it is (`meta.webhook.url`); list
 * indexes are left out of the name, since the rule is about the list.
 */
export function describeIssue(error: z.ZodError, root: string, rootText = root): string {
  const issue = error.issues[0]!;
  const names = issue.path.filter((p): p is string => typeof p === 'string');
  const path = [root, ...names].join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => JSON.stringify(k.slice(0, 40))).join(', ');
    return `Unknown ${path} field${issue.keys.length > 1 ? 's' : ''}: ${keys}.`;
  }
  return `${names.length > 0 ? path : rootText} ${issue.message.replace(/\.$/, '')}.`;
}

/**
 * Checks `value` against `schema` and returns the typed result; a failure is one FileconvError
 * (INVALID_REQUEST unless the caller names the spec's code for that input).
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: { root: string; rootText?: string; code?: ErrorCode },
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new FileconvError(
    where.code ?? 'INVALID_REQUEST',
    describeIssue(parsed.error, where.root, where.rootText),
  );
}
