import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreEngine, type ServerEngine } from '../../src/server/jobs/engine.js';
import { removeDir, startTestServer, submit, type TestServer, waitDone } from './helpers.js';

// The real engines, watched: how many conversions are inside the engines at once.
let inEngines = 0;
let mostInEngines = 0;
let server: TestServer;
beforeAll(async () => {
  const core = await coreEngine();
  const watch = async <T>(run: () => Promise<T>): Promise<T> => {
    inEngines++;
    mostInEngines = Math.max(mostInEngines, inEngines);
    try {
      return await run();
    } finally {
      inEngines--;
    }
  };
  // Small csv->json conversions run in memory: both ways in are watched.
  const watched: ServerEngine = {
    ...core,
    convert: (job) => watch(() => core.convert(job)),
    convertInMemory: (job) => watch(() => core.convertInMemory!(job)),
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
