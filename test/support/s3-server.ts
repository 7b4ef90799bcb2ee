/**
 * Runs s3rver (an S3-protocol server on local files) on a free loopback port, as its own process so
 * several fileconv processes of one test can share it. Usage: `s3-server.ts <folder> <bucket>`.
 * Prints one JSON line `{"port": N}` once it listens; stops on SIGTERM or when stdin closes.
 */
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';

interface S3rverOptions {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: { name: string }[];
}
interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
  store: {
    getResourcePath(bucket: string, key: string, resource: string): string;
    deleteObject(bucket: string, key: string): Promise<void>;
  };
}

// s3rver is CommonJS without type declarations: this is the little of it the tests use.
const S3rver = createRequire(import.meta.url)('s3rver') as new (o: S3rverOptions) => S3rverInstance;

const [directory, bucket] = process.argv.slice(2);
if (!directory || !bucket) {
  process.stderr.write('usage: s3-server.ts <folder> <bucket>\n');
  process.exit(2);
}
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory,
  silent: true,
  configureBuckets: [{ name: bucket }],
});
// s3rver 3.7 removes a folder once its last object is deleted, while a PUT of another object may
// have just made that folder: the PUT's write stream then fails with ENOENT, with no handler, and
// the whole server exits (seen under the load test, about one run in three). Deletes here remove
// the object's files only and keep the folders, as fileconv's own disk store does.
server.store.deleteObject = async (bucket, key) => {
  const files = ['object', 'object.md5', 'metadata.json'];
  await Promise.all(files.map((f) => rm(server.store.getResourcePath(bucket, key, f), { force: true })));
};
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
const stop = () => {
  server.close().finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
// The test process holds stdin open: when it ends, even by a crash, this server goes too.
process.stdin.on('end', stop).resume();
