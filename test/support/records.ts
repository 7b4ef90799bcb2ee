import type { ArtifactRecord, NewRequest } from '../../src/store/types.js';

/** A queued csv->json conversion as the API files it. */
export function queuedConversion(
  id: string,
  createdAt: number,
  overrides: Partial<NewRequest> = {},
): NewRequest {
  return {
    id,
    kind: 'convert',
    status: 'running',
    conversion: 'csv-json',
    from: 'csv',
    to: 'json',
    options: { delimiter: ';' },
    filename: 'table.csv',
    inputKey: `inputs/${id}`,
    identity: 'ip:203.0.113.7',
    queue: 'queued',
    progress: { percent: 0, stage: 'queued', step: 0, steps: 2 },
    createdAt,
    ...overrides,
  };
}

/** The JSON artifact such a conversion stores, live for an hour. */
export function jsonArtifact(requestId: string): ArtifactRecord {
  return {
    requestId,
    name: 'table.json',
    format: 'json',
    mime: 'application/json',
    size: 12,
    sha256: 'a'.repeat(64),
    blobKey: `artifacts/${requestId}/table.json`,
    filename: 'table.json',
    expiresAt: Date.now() + 3_600_000,
    expired: false,
  };
}
