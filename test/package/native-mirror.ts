import { createReadStream, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';

/**
 * better-sqlite3's install downloads a prebuilt binary from its GitHub releases and compiles the
 * library from source when it cannot: on machines that reach the npm registry but not GitHub (CI
 * here) every install of the tarball compiled it, two to three minutes each. This serves the
 * binary the checkout's own install made, for the same version, platform and Node ABI, from a
 * loopback mirror in prebuild-install's layout, so an install of the tarball gets a prebuilt
 * binary as a user's does. Any other version asked for is not served, and compiles.
 */
export async function nativeMirror(
  root: string,
  work: string,
): Promise<{ env: Record<string, string>; served(): number; close(): Promise<void> }> {
  const pkg = join(root, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  // prebuild-install's name: {name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz (glibc: no libc part).
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const dir = join(work, 'native-mirror');
  mkdirSync(dir, { recursive: true });
  await execa('tar', ['-czf', join(dir, name), '-C', pkg, 'build/Release/better_sqlite3.node']);
  let served = 0;
  const server = createServer((req, res) => {
    if (req.url !== `/v${version}/${name}`) {
      res.writeHead(404).end();
      return;
    }
    served++;
    res.writeHead(200, { 'content-type': 'application/gzip' });
    createReadStream(join(dir, name)).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    env: { npm_config_better_sqlite3_binary_host: `http://127.0.0.1:${port}` },
    served: () => served,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
