import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { FileconvError } from '../errors/index.js';

/** Where blobs go in S3: a bucket and a key prefix (`''` or ending in `/`). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

// S3's bucket naming rules (lowercase letters, digits, dots, hyphens; 3 to 63 characters).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PREFIX_SEGMENT = /^[A-Za-z0-9_.-]+$/;

/** Parses `s3://bucket/prefix` (the prefix is optional); throws INVALID_REQUEST on anything else. */
export function parseS3Url(value: string): S3Location {
  const m = /^s3:\/\/([^/?#]+)\/?([^?#]*)$/.exec(value.trim());
  const bucket = m?.[1] ?? '';
  if (!m || !BUCKET.test(bucket))
    throw new FileconvError(
      'INVALID_REQUEST',
      `--storage must look like s3://bucket/prefix, got "${value}".`,
    );
  const segments = (m[2] ?? '').split('/').filter((s) => s !== '');
  if (segments.some((s) => !PREFIX_SEGMENT.test(s) || s === '.' || s === '..'))
    throw new FileconvError(
      'INVALID_REQUEST',
      `The prefix of --storage may hold letters, digits, "_", "-" and "." between slashes, got "${value}".`,
    );
  return { bucket, prefix: segments.length > 0 ? `${segments.join('/')}/` : '' };
}

/**
 * The S3 client settings from the environment: `FILECONV_S3_ENDPOINT` for an S3-compatible server
 * (addressed path-style, as most of them expect), `AWS_REGION`, and `AWS_ACCESS_KEY_ID` /
 * `AWS_SECRET_ACCESS_KEY`; without keys the SDK's own chain looks further (profiles, instance roles).
 */
export function s3ClientConfig(env: NodeJS.ProcessEnv = process.env): S3ClientConfig {
  const endpoint = env.FILECONV_S3_ENDPOINT || undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/\s]+\/?$/.test(endpoint))
    throw new FileconvError(
      'INVALID_REQUEST',
      `FILECONV_S3_ENDPOINT must be an http(s) URL with no path, got "${endpoint}".`,
    );
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  return {
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    ...(endpoint !== undefined && { endpoint, forcePathStyle: true }),
    ...(accessKeyId && secretAccessKey && { credentials: { accessKeyId, secretAccessKey } }),
    // Checksums only where S3 requires them: S3-compatible servers do not all read the trailing
    // checksums (aws-chunked bodies) the SDK sends by default.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}
