import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreEngine, type ServerEngine } from '../../src/server/engine.js';
import { removeDir, startTestServer, submit, type TestServer, waitDone } from './helpers.js';

// The real engines, watched: how many conversions are inside the engines at once.
let inEngines = 0;
let mostInEngines = 0;
let server: TestServer;
beforeAll(async () => {
  const core = await coreEngine();
  const watched: ServerEngine = {
    ...core,
    async convert(job) {
      inEngines++;
      mostInEngines = Math.max(mostInEngines, inEngines);
      try {
        return await core.convert(job);
      } finally {
        inEngines--;
      }
    },
  };
  server = await startTestServer({ concurrency: '2' }, { engine: watched });
});
afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
});

describe('queue slots', () => {
  it('keeps engine runs within --concurrency while finished conversions store their outputs', async () => {
    const ids = await Promise.all(
      Array.from({ length: 12 }, (_, i) => submit(server.url, 'csv-json', `t${i}.csv`, `a,b\n${i},2\n`)),
    );
    const done = await Promise.all(ids.map((id) => waitDone(server.url, id)));
    expect(done.map((d) => d.status)).toEqual(ids.map(() => 'succeeded'));
    for (const d of done) expect(d.artifacts[0]).toMatchObject({ name: 'json', format: 'json' });
    expect(mostInEngines).toBeGreaterThanOrEqual(1);
    expect(mostInEngines).toBeLessThanOrEqual(2);
    expect(server.context.queue.active).toBe(0);
  });
});
