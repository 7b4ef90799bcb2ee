import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBinary } from '../../src/run/process.js';
import {
  filePart,
  type Json,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  waitDone,
} from '../server/helpers.js';

/**
 * A merge of large pictures must not hold the server's event loop (issue 38, class 3): each
 * 7000 x 7000 PNG's pixels were split into colour and alpha in JavaScript and deflated with
 * deflateSync in the server process, about half a second per input with nothing else answered.
 * The server runs in this process, so the loop measured is the one that answers its requests.
 */

const noQpdf = !findBinary(['qpdf']);
const SIDE = 7000;
const INPUTS = 3;

let server: TestServer;
let picture: Buffer;

/** The longest the loop was held, in ms, while `work` ran. */
async function longestHold(work: () => Promise<unknown>): Promise<number> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  try {
    await work();
  } finally {
    loop.disable();
  }
  return loop.max / 1e6;
}

const merge = (count: number, bytes: Buffer) =>
  post(`${server.url}/api/public/convert`, [
    metaPart({ to: 'pdf' }),
    ...Array.from({ length: count }, (_, i) => filePart(`big-${i + 1}.png`, bytes)),
  ]);

beforeAll(async () => {
  server = await startTestServer();
  // Half-transparent, so both the colour and the alpha planes are made; one colour keeps the
  // upload small (a few hundred KB) while the decoded pixels are 196 MB an input.
  picture = await sharp({
    create: { width: SIDE, height: SIDE, channels: 4, background: { r: 40, g: 160, b: 90, alpha: 0.5 } },
  })
    .png()
    .toBuffer();
}, 120_000);
afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

describe('pixel work stays off the event loop', () => {
  it.skipIf(noQpdf)(
    `merges ${INPUTS} pictures of ${SIDE} x ${SIDE} without holding the loop (500 ms, or 4 x the machine's noise)`,
    // Beside another test file's engines on two cores, one stall of the whole process (1.5 s once)
    // can land in the merge and not in the noise sample: tried again, as the pixel work on the loop
    // that this guards against held it 8 to 11 s on every run.
    { timeout: 300_000, retry: 2 },
    async () => {
      // A first merge loads the catalog and the engines' modules, once per server: not measured.
      const small = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } })
        .png()
        .toBuffer();
      const warm = await merge(2, small);
      await waitDone(server.url, warm.json.request_id, 300_000);
      // The machine's own noise: the same pixel work done off the loop by this process (decoded by
      // libvips, deflated on the thread pool), with every core as busy as the merge makes it.
      const noise = await longestHold(async () => {
        for (let i = 0; i < INPUTS; i++) {
          const raw = await sharp(picture).raw().toBuffer();
          await Promise.all([
            promisify(deflate)(raw),
            sharp(raw, { raw: { width: SIDE, height: SIDE, channels: 4 } })
              .extractChannel(3)
              .raw()
              .toBuffer(),
          ]);
        }
      });
      let done: Json;
      const held = await longestHold(async () => {
        const res = await merge(INPUTS, picture);
        expect(res.status, res.text).toBe(202);
        done = await waitDone(server.url, res.json.request_id, 300_000);
      });
      expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
      // Not a speed target: the bound only tells the two designs apart. Pixels split and deflated
      // on the loop held it about 0.55 s per input on a quiet machine, and 8 to 11 s on this
      // shared 2-core one under a load of 28; off the loop, the longest hold is the scheduler's
      // and the garbage collector's, which the same work done off the loop by the test measures
      // (0.4 to 0.7 s here, tens of ms on a quiet machine). So: 500 ms, or four times the noise.
      const bound = Math.max(500, 4 * noise);
      console.log(
        `event loop: longest hold ${held.toFixed(0)} ms during the merge, noise ${noise.toFixed(0)} ms`,
      );
      expect(held, `longest hold ${held.toFixed(0)} ms, noise ${noise.toFixed(0)} ms`).toBeLessThan(bound);
    },
  );
});
