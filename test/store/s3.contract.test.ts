import { afterAll, beforeAll } from 'vitest';
import { S3BlobStore } from '../../src/store/s3.js';
import { startTestS3, type TestS3 } from '../support/s3.js';
import { blobContract } from './contract/blobs.js';

let s3: TestS3;
beforeAll(async () => {
  s3 = await startTestS3();
});
afterAll(async () => {
  await s3?.stop();
});

// Through the same settings as `serve --storage`: the URL, FILECONV_S3_ENDPOINT and the AWS_* variables.
blobContract('S3 (s3rver)', async () => S3BlobStore.fromUrl(`s3://${s3.bucket}/contract`, s3.env), {
  presigned: true,
});
