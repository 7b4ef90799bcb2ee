import { describe, expect, it } from 'vitest';
import { FileconvError } from '../../src/errors/index.js';
import { mapLimit, Semaphore } from '../../src/run/concurrency.js';

/** A promise with its resolver, so a test decides when each piece of work ends. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('Semaphore', () => {
  it('lets at most `limit` hold it and serves waiters in arrival order', async () => {
    const semaphore = new Semaphore(2);
    const order: string[] = [];
    const first = await semaphore.acquire();
    const second = await semaphore.acquire();
    const third = semaphore.acquire().then((release) => {
      order.push('third');
      return release;
    });
    const fourth = semaphore.acquire().then((release) => {
      order.push('fourth');
      return release;
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    first();
    first(); // a second release of the same slot gives nothing back
    (await third)();
    second();
    (await fourth)();
    expect(order).toEqual(['third', 'fourth']);
  });

  it('rejects a waiter whose signal aborts, without taking its slot', async () => {
    const semaphore = new Semaphore(1);
    const held = await semaphore.acquire();
    const controller = new AbortController();
    const waiting = semaphore.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(FileconvError);
    await expect(semaphore.acquire(controller.signal)).rejects.toMatchObject({ code: 'CONVERT_FAILED' });
    held();
    const next = await semaphore.acquire();
    next();
  });
});

describe('mapLimit', () => {
  it('runs at most `limit` at once and keeps the items order', async () => {
    const gates = Array.from({ length: 5 }, gate);
    let running = 0;
    let most = 0;
    const mapped = mapLimit([0, 1, 2, 3, 4], 2, async (n, index) => {
      running++;
      most = Math.max(most, running);
      await gates[n]!.promise;
      running--;
      return `${n}@${index}`;
    });
    // Finish them out of order: the results still follow the items.
    for (const n of [1, 0, 3, 2, 4]) {
      gates[n]!.open();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await mapped).toEqual(['0@0', '1@1', '2@2', '3@3', '4@4']);
    expect(most).toBe(2);
    expect(await mapLimit([], 3, async () => 1)).toEqual([]);
  });
});
