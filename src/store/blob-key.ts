const KEY = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_.-]+)*$/;

/**
 * Keys are made by the server (`inputs/<id>`, `artifacts/<id>/<name>`), but a bad one must never
 * reach outside the store's folder or prefix: throws on anything else.
 */
export function checkBlobKey(key: string): string {
  if (!KEY.test(key) || key.split('/').some((s) => s === '.' || s === '..'))
    throw new Error(`bad blob key ${key}`);
  return key;
}
