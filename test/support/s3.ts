import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** A running S3-protocol server for tests, and what a client needs to reach it. */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** The folder s3rver keeps its objects in (to look at what is stored without S3). */
  directory: string;
  /** The environment a fileconv process needs to use this server (FILECONV_S3_ENDPOINT, AWS_*). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

const SCRIPT = join(import.meta.dirname, 's3-server.ts');

/**
 * Starts s3rver in a child process on a free loopback port over a fresh temp folder, with one
 * bucket made. s3rver knows one account, S3RVER / S3RVER; it checks the key id of SigV4 requests
 * but not their signatures.
 */
export async function startTestS3(bucket = 'fileconv-test'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'fileconv-s3-'));
  // s3rver makes ListObjectsV2 continuation tokens with DES, which OpenSSL 3 keeps in its legacy
  // provider: without it, listing past the first 1,000 keys fails.
  const node = ['--openssl-legacy-provider', '--import', 'tsx'];
  const child = spawn(process.execPath, [...node, SCRIPT, directory, bucket], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopping = false;
  // A server that dies mid-run turns every later S3 call into ECONNREFUSED: say why it died.
  child.once('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`s3rver exited (${code ?? signal}) while in use: ${stderr}\n`);
  });
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening: ${stderr}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', region: 'us-east-1' };
  return {
    endpoint,
    bucket,
    ...credentials,
    directory,
    env: {
      FILECONV_S3_ENDPOINT: endpoint,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_REGION: credentials.region,
    },
    async stop() {
      stopping = true;
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
