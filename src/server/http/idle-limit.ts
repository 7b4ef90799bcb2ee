import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The idle limit (`--idle-timeout`) is for a client that stops sending or stops reading. While the
 * server works on a request it has whole (detection, planning, the records, a long poll's wait),
 * the connection is quiet by the server's own doing: the timer is off from the request's last
 * byte until the answer starts, and on again for the answer, so a download nobody reads is still
 * cut. Under load a server could otherwise cut its own requests mid-thought (a client saw "other
 * side closed" for a small upload the server took over the limit to file).
 */
export function idleLimitOnClientOnly(req: IncomingMessage, res: ServerResponse, idleMs: number): void {
  const socket = req.socket;
  const pause = () => {
    if (!res.headersSent && !socket.destroyed) socket.setTimeout(0);
  };
  // A request without a body is whole once its headers are parsed, just after this event.
  setImmediate(() => {
    if (req.complete) pause();
    else req.once('end', pause);
  });
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    if (!socket.destroyed) socket.setTimeout(idleMs);
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
}
