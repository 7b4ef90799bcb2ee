import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import type { PrivateTarget, Resolver } from '../../src/intake/url.js';

/** A loopback HTTP origin for fetch tests. */
export async function startOrigin(
  handler: RequestListener,
): Promise<{ server: Server; port: number; base: string }> {
  const server = createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, port, base: `http://127.0.0.1:${port}` };
}

/**
 * A TCP listener on every local address (dual stack when the host has IPv6) that only counts
 * connections: a blocked fetch aimed at it must leave the count at zero.
 */
export async function startCanary(): Promise<{ server: NetServer; port: number; connections: () => number }> {
  let count = 0;
  const server = createNetServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => {
    // Hosts without IPv6 fall back to every IPv4 address.
    server.once('error', () => server.listen(0, '0.0.0.0', resolve));
    server.listen({ port: 0, host: '::', ipv6Only: false }, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return { server, port, connections: () => count };
}

export function closeServer(server: { close(cb: () => void): unknown; closeAllConnections?: () => void }) {
  server.closeAllConnections?.();
  return new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A resolver answering from a fixed table and recording what it was asked; unknown names fail. */
export function stubResolver(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver = async (hostname: string) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`stub: no such host ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { asked });
}

/** Test-only allowance: exactly one loopback port may be reached, everything else is checked. */
export function allowOnlyPort(port: number) {
  return (target: PrivateTarget) => target.port === port;
}
