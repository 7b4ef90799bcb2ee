import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Context } from 'hono';
import type { AppEnv } from '../context.js';

const made = new WeakMap<Request, IncomingMessage>();

/**
 * The request as a Node stream. Under @hono/node-server it is the adapter's IncomingMessage; when
 * the app is mounted in another fetch-style server, a stream over the Web Request's body with its
 * headers, so uploads are still streamed to disk and never held in memory.
 */
export function incomingOf(c: Context<AppEnv>): IncomingMessage {
  const native = (c.env as AppEnv['Bindings'] | undefined)?.incoming;
  if (native) return native;
  const request = c.req.raw;
  let incoming = made.get(request);
  if (!incoming) {
    const body = request.body
      ? Readable.fromWeb(request.body as unknown as WebReadableStream<Uint8Array>)
      : Readable.from([]);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    incoming = Object.assign(body, { headers }) as unknown as IncomingMessage;
    made.set(request, incoming);
  }
  return incoming;
}

/** The peer's address; unknown when the app is mounted outside node's own HTTP server. */
export function socketAddress(c: Context<AppEnv>): string | undefined {
  return (c.env as AppEnv['Bindings'] | undefined)?.incoming?.socket.remoteAddress;
}
