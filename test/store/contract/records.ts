import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utcDay } from '../../../src/identity/quota.js';
import type { ArtifactRecord, NewRequest, Records } from '../../../src/store/types.js';

/**
 * What every records driver must do. `open` connects to one database shared by the whole suite
 * (each call a new connection), so the tests tell their rows apart by fresh ids, and the ones
 * that look at the whole queue finish every request they file.
 */
export function recordsContract(name: string, open: () => Promise<Records>): void {
  describe(`records contract: ${name}`, () => {
    let db: Records;
    const extra: Records[] = [];
    beforeAll(async () => {
      db = await open();
    });
    afterAll(async () => {
      for (const r of extra.splice(0)) await r.close();
      await db.close();
    });
    const another = async () => {
      const r = await open();
      extra.push(r);
      return r;
    };

    const uid = () => randomUUID().replaceAll('-', '');
    const convert = (overrides: Partial<NewRequest> = {}): NewRequest => {
      const id = overrides.id ?? `req_${uid()}`;
      return {
        id,
        kind: 'convert',
        status: 'running',
        conversion: 'csv-json',
        from: 'csv',
        to: 'json',
        options: { pretty: true },
        filename: 'data.csv',
        inputKey: `inputs/${id}`,
        ownerHash: `owner-${uid()}`,
        identity: 'ip:203.0.113.7',
        queue: 'queued',
        progress: { percent: 0, stage: 'queued', step: 0, steps: 1 },
        quota: { kind: 'conversions', day: '2026-03-10' },
        createdAt: 1_000,
        ...overrides,
      };
    };
    const artifact = (
      requestId: string,
      name: string,
      overrides: Partial<ArtifactRecord> = {},
    ): ArtifactRecord => ({
      requestId,
      name,
      format: 'json',
      mime: 'application/json',
      size: 42,
      sha256: 'ab'.repeat(32),
      blobKey: `artifacts/${requestId}/${name}.json`,
      filename: `data-${name}.json`,
      expiresAt: 10_000,
      expired: false,
      checks: { words: 3 } as ArtifactRecord['checks'],
      ...overrides,
    });
    const failure = { code: 'CONVERT_FAILED', message: 'it broke' };
    /** Claims whatever waits, so a test that looks at the whole queue starts from an empty one. */
    const drainQueue = async () => {
      for (let r = await db.requests.claimNextQueued(0); r; r = await db.requests.claimNextQueued(0))
        await db.requests.finishFailed(r.id, failure, 0);
    };

    it('files a request with its events and reads it back as filed', async () => {
      const r = convert();
      await db.requests.createRequest(r, [
        { at: 1_000, kind: 'received', message: 'Received data.csv.' },
        { at: 1_001, kind: 'queued', message: 'Queued.' },
      ]);
      expect(await db.requests.getRequest(r.id)).toEqual({
        id: r.id,
        kind: 'convert',
        status: 'running',
        conversion: 'csv-json',
        from: 'csv',
        to: 'json',
        options: { pretty: true },
        filename: 'data.csv',
        inputKey: r.inputKey,
        inputs: undefined,
        ownerHash: r.ownerHash,
        identity: 'ip:203.0.113.7',
        queue: 'queued',
        attempts: 0,
        progress: { percent: 0, stage: 'queued', step: 0, steps: 1 },
        error: undefined,
        report: undefined,
        createdAt: 1_000,
        updatedAt: 1_000,
        finishedAt: undefined,
        quota: { kind: 'conversions', day: '2026-03-10' },
      });
      await db.requests.addEvent(r.id, { at: 1_002, kind: 'started', message: 'Started.' });
      expect((await db.requests.timeline(r.id)).map((e) => e.kind)).toEqual([
        'received',
        'queued',
        'started',
      ]);
      expect(await db.requests.getRequest(`req_${uid()}`)).toBeUndefined();
      // Another connection sees it at once.
      expect((await (await another()).requests.getRequest(r.id))?.id).toBe(r.id);
      await db.requests.claim(r.id, 1_100);
      expect(await db.requests.finishFailed(r.id, failure, 1_200)).toBe(true);
    });

    it('files a finished detect with its report', async () => {
      const id = `req_${uid()}`;
      await db.requests.createRequest(
        {
          id,
          kind: 'detect',
          status: 'succeeded',
          filename: 'a.csv',
          identity: 'ip:a',
          queue: 'done',
          progress: { percent: 100, stage: 'done', step: 0, steps: 0 },
          report: { detected: 'csv', confidence: 0.9 },
          createdAt: 5,
        },
        [],
      );
      expect(await db.requests.getRequest(id)).toMatchObject({
        status: 'succeeded',
        report: { detected: 'csv', confidence: 0.9 },
        finishedAt: 5,
        conversion: undefined,
        inputKey: undefined,
      });
    });

    it('lists an owner’s requests newest first, up to the limit', async () => {
      const owner = `owner-${uid()}`;
      for (const at of [10, 30, 20])
        await db.requests.createRequest(convert({ ownerHash: owner, createdAt: at }), []);
      const recent = await db.requests.recentByOwner(owner, 2);
      expect(recent.map((r) => r.createdAt)).toEqual([30, 20]);
      expect(await db.requests.recentByOwner(`owner-${uid()}`, 5)).toEqual([]);
      for (const r of await db.requests.recentByOwner(owner, 10)) {
        await db.requests.claim(r.id, 40);
        await db.requests.finishFailed(r.id, failure, 40);
      }
    });

    it('claims queued conversions oldest first, each once, and counts what waits', async () => {
      await drainQueue();
      expect(await db.requests.countQueued()).toBe(0);
      const later = convert({ createdAt: 2_000 });
      const earlier = convert({ createdAt: 1_500 });
      await db.requests.createRequest(later, []);
      await db.requests.createRequest(earlier, []);
      expect(await db.requests.countQueued()).toBe(2);
      const claims = await Promise.all([
        db.requests.claimNextQueued(3_000),
        db.requests.claimNextQueued(3_000),
      ]);
      expect(claims.map((c) => c?.id).sort()).toEqual([earlier.id, later.id].sort());
      const first = await db.requests.getRequest(earlier.id);
      expect(first).toMatchObject({ queue: 'working', attempts: 1, updatedAt: 3_000 });
      expect(await db.requests.claimNextQueued(3_000)).toBeUndefined();
      expect(await db.requests.countQueued()).toBe(0);
      for (const r of [earlier, later]) await db.requests.finishFailed(r.id, failure, 3_100);
    });

    it('claims a conversion of a free lane before older ones of a lane whose slots are taken', async () => {
      await drainQueue();
      // A long video holds the ffmpeg lane's one slot; more videos and a picture wait behind it.
      const long = convert({ lane: 'ffmpeg', conversion: 'mp4-webm', createdAt: 1_000 });
      const laterVideo = convert({ lane: 'ffmpeg', conversion: 'mp4-webm', createdAt: 1_100 });
      const picture = convert({ lane: 'sharp', conversion: 'png-webp', createdAt: 1_200 });
      const lastVideo = convert({ lane: 'ffmpeg', conversion: 'mp4-webm', createdAt: 1_300 });
      for (const r of [long, laterVideo, picture, lastVideo]) await db.requests.createRequest(r, []);
      expect((await db.requests.claimNextQueued(2_000))?.id).toBe(long.id);
      const next = await db.requests.claimNextQueued(2_000, ['ffmpeg']);
      expect(next).toMatchObject({ id: picture.id, lane: 'sharp', queue: 'working' });
      // Only full lanes' conversions are left: nothing to claim until a slot frees.
      expect(await db.requests.claimNextQueued(2_000, ['ffmpeg'])).toBeUndefined();
      expect((await db.requests.claimNextQueued(2_000, ['sharp']))?.id).toBe(laterVideo.id);
      // A request without a lane (older records) is in lane ''.
      const laneless = convert({ createdAt: 1_050 });
      await db.requests.createRequest(laneless, []);
      expect((await db.requests.claimNextQueued(2_000, ['']))?.id).toBe(lastVideo.id);
      expect((await db.requests.claimNextQueued(2_000))?.id).toBe(laneless.id);
      for (const r of [long, laterVideo, picture, lastVideo, laneless])
        await db.requests.finishFailed(r.id, failure, 2_100);
    });

    it("writes a run's whole trail with its end, in order, and none of it when the run ended elsewhere", async () => {
      const [won, lost, failedRun] = [convert(), convert(), convert()];
      for (const r of [won, lost, failedRun]) await db.requests.createRequest(r, []);
      const trail = (kinds: string[], at: number) =>
        kinds.map((kind, i) => ({ at: at + i, kind, message: `${kind}.` }));
      const ran = trail(['started', 'step-started', 'engine-try', 'step-done', 'succeeded'], 4_000);
      expect(await db.requests.finishSucceeded(won.id, [artifact(won.id, 'json')], 4_010, ran)).toBe(true);
      expect(await db.requests.timeline(won.id)).toEqual(ran);
      await db.requests.finishFailed(lost.id, failure, 4_100);
      expect(
        await db.requests.finishSucceeded(
          lost.id,
          [artifact(lost.id, 'json')],
          4_200,
          trail(['started'], 4_150),
        ),
      ).toBe(false);
      expect(await db.requests.timeline(lost.id)).toEqual([]);
      const failing = trail(['started', 'engine-failed', 'failed'], 4_300);
      expect(await db.requests.finishFailed(failedRun.id, failure, 4_310, failing)).toBe(true);
      expect(await db.requests.timeline(failedRun.id)).toEqual(failing);
    });

    it('lets a worker claim a job, again after a dead worker, and never after it finished', async () => {
      const r = convert();
      await db.requests.createRequest(r, []);
      expect(await db.requests.claim(r.id, 2_000)).toMatchObject({ id: r.id, queue: 'working', attempts: 1 });
      // The job came back to another worker: the request is claimed again.
      expect(await db.requests.claim(r.id, 2_500)).toMatchObject({ queue: 'working', attempts: 2 });
      const ended = { at: 3_000, kind: 'succeeded', message: 'Done.' };
      expect(await db.requests.finishSucceeded(r.id, [artifact(r.id, 'json')], 3_000, ended)).toBe(true);
      // A duplicate delivery after the end: nothing to claim, nothing stored twice, no second event.
      expect(await db.requests.claim(r.id, 3_500)).toBeUndefined();
      expect(await db.requests.finishSucceeded(r.id, [artifact(r.id, 'json')], 3_600, ended)).toBe(false);
      expect(await db.requests.finishFailed(r.id, failure, 3_700, { ...ended, kind: 'failed' })).toBe(false);
      expect(await db.requests.timeline(r.id)).toEqual([ended]);
      expect(await db.requests.claim(`req_${uid()}`, 1)).toBeUndefined();
      const done = await db.requests.getRequest(r.id);
      expect(done).toMatchObject({
        status: 'succeeded',
        queue: 'done',
        finishedAt: 3_000,
        error: undefined,
        progress: { percent: 100, stage: 'done', step: 1, steps: 1 },
      });
      expect(await db.requests.artifacts(r.id)).toEqual([artifact(r.id, 'json')]);
    });

    it('keeps a claim alive only with its token: a forged or replayed heartbeat neither keeps nor steals it', async () => {
      const r = convert();
      await db.requests.createRequest(r, []);
      const mine = { token: `tok-${uid()}`, staleBefore: 0 };
      expect(await db.requests.claim(r.id, 10_000, mine)).toMatchObject({ queue: 'working', attempts: 1 });
      // The token is the worker's own: the record handed out does not carry it in any field.
      expect(JSON.stringify(await db.requests.getRequest(r.id))).not.toContain(mine.token);
      expect(await db.requests.heartbeat(r.id, mine.token, 15_000)).toBe(true);
      // A forged token changes nothing; neither does a heartbeat for another request.
      expect(await db.requests.heartbeat(r.id, `tok-${uid()}`, 16_000)).toBe(false);
      expect(await db.requests.heartbeat(`req_${uid()}`, mine.token, 16_000)).toBe(false);
      // Another worker's delivery while the heartbeat is fresh takes nothing...
      const thief = { token: `tok-${uid()}`, staleBefore: 15_000 };
      expect(await db.requests.claim(r.id, 40_000, thief)).toBeUndefined();
      // ...nor can it put the request back in the queue with its own token.
      expect(await db.requests.requeue(r.id, 40_000, thief.token)).toBe(false);
      expect(await db.requests.getRequest(r.id)).toMatchObject({ queue: 'working', attempts: 1 });
      // Once the heartbeat is older than the limit, one new claim takes it over.
      const next = { token: `tok-${uid()}`, staleBefore: 15_001 };
      const claims = await Promise.all([
        db.requests.claim(r.id, 50_000, next),
        (await another()).requests.claim(r.id, 50_000, { ...next, token: `tok-${uid()}` }),
      ]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      const winner = claims[0] ? next.token : undefined;
      // The first claim's token is dead: replaying its heartbeat or requeueing with it does nothing.
      expect(await db.requests.heartbeat(r.id, mine.token, 51_000)).toBe(false);
      expect(await db.requests.requeue(r.id, 51_000, mine.token)).toBe(false);
      if (winner) expect(await db.requests.heartbeat(r.id, winner, 52_000)).toBe(true);
      expect(await db.requests.getRequest(r.id)).toMatchObject({ queue: 'working', attempts: 2 });
      await db.requests.finishSucceeded(r.id, [artifact(r.id, 'json')], 60_000);
      // A finished request has no claim to keep.
      if (winner) expect(await db.requests.heartbeat(r.id, winner, 61_000)).toBe(false);
    });

    it('hands on conversions whose heartbeat stopped, each to one sweeper, and never one claimed without a ticket', async () => {
      const dead = convert();
      const alive = convert();
      const embedded = convert();
      for (const r of [dead, alive, embedded]) await db.requests.createRequest(r, []);
      const deadTicket = { token: `tok-${uid()}`, staleBefore: 0 };
      const aliveTicket = { token: `tok-${uid()}`, staleBefore: 0 };
      await db.requests.claim(dead.id, 70_000, deadTicket);
      await db.requests.claim(alive.id, 70_000, aliveTicket);
      await db.requests.claim(embedded.id, 70_000);
      await db.requests.heartbeat(alive.id, aliveTicket.token, 95_000);
      // Three sweepers at once with a 30 s limit at 101 s: the dead claim goes to exactly one of them.
      const sweeps = await Promise.all([
        db.requests.releaseStale(101_000, 71_000),
        (await another()).requests.releaseStale(101_000, 71_000),
        (await another()).requests.releaseStale(101_000, 71_000),
      ]);
      const released = sweeps.flat().filter((r) => [dead.id, alive.id, embedded.id].includes(r.id));
      expect(released.map((r) => r.id)).toEqual([dead.id]);
      expect(released[0]).toMatchObject({ queue: 'queued', progress: { percent: 0, stage: 'queued' } });
      expect(await db.requests.getRequest(alive.id)).toMatchObject({ queue: 'working' });
      expect(await db.requests.getRequest(embedded.id)).toMatchObject({ queue: 'working' });
      // The dead worker, were it only paused, finds its claim gone.
      expect(await db.requests.heartbeat(dead.id, deadTicket.token, 102_000)).toBe(false);
      expect(await db.requests.requeue(dead.id, 102_000, deadTicket.token)).toBe(false);
      // The next worker claims it as any queued conversion; its own token can put it back.
      const again = { token: `tok-${uid()}`, staleBefore: 71_000 };
      expect(await db.requests.claim(dead.id, 103_000, again)).toMatchObject({
        queue: 'working',
        attempts: 2,
      });
      expect(await db.requests.requeue(dead.id, 104_000, again.token)).toBe(true);
      for (const r of [dead, alive, embedded]) await db.requests.finishFailed(r.id, failure, 110_000);
    });

    it('stores a failure once, with its error, and keeps the input key until cleared', async () => {
      const r = convert();
      await db.requests.createRequest(r, []);
      await db.requests.claim(r.id, 10);
      await db.requests.updateProgress(r.id, { percent: 40, stage: 'converting', step: 1, steps: 1 }, 20);
      expect(await db.requests.getRequest(r.id)).toMatchObject({
        progress: { percent: 40, stage: 'converting' },
        updatedAt: 20,
      });
      const results = await Promise.all([
        db.requests.finishFailed(r.id, failure, 30),
        db.requests.finishSucceeded(r.id, [artifact(r.id, 'json')], 30),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const ended = await db.requests.getRequest(r.id);
      expect(ended?.status === 'failed' ? ended.error : failure).toEqual(failure);
      expect(ended?.inputKey).toBe(r.inputKey);
      // Ended and still holding its input: the retention sweep finds it, and no running request.
      expect((await db.requests.endedWithInput()).map((e) => e.id)).toContain(r.id);
      await db.requests.clearInputKey(r.id);
      expect((await db.requests.getRequest(r.id))?.inputKey).toBeUndefined();
      expect((await db.requests.endedWithInput()).map((e) => e.id)).not.toContain(r.id);
    });

    it('drops sealed option values (passwords) when a request ends, either way, and keeps the others', async () => {
      const sealed = { pretty: true, password: 'sealed:v1:AAAA', user_password: 'sealed:v1:BBBB' };
      const ok = convert({ options: sealed });
      const bad = convert({ options: sealed });
      for (const r of [ok, bad]) {
        await db.requests.createRequest(r, []);
        await db.requests.claim(r.id, 10);
        // Running: the worker still has to open them.
        expect((await db.requests.getRequest(r.id))?.options).toEqual(sealed);
      }
      await db.requests.finishSucceeded(ok.id, [artifact(ok.id, 'json')], 20);
      await db.requests.finishFailed(bad.id, failure, 20);
      for (const r of [ok, bad])
        expect((await db.requests.getRequest(r.id))?.options).toEqual({ pretty: true });
    });

    it('puts interrupted work back in the queue, or fails it past the attempt limit or without input', async () => {
      await drainQueue();
      const fresh = convert();
      const tired = convert();
      const inputless = convert({ inputKey: undefined });
      for (const r of [fresh, tired, inputless]) await db.requests.createRequest(r, []);
      for (const r of [fresh, tired, inputless]) await db.requests.claim(r.id, 100);
      await db.requests.claim(tired.id, 200);
      await db.requests.claim(tired.id, 300);
      const { requeued, failed } = await db.requests.requeueInterrupted(400, 3);
      expect(requeued.map((r) => r.id)).toEqual([fresh.id]);
      expect(failed.map((r) => r.id).sort()).toEqual([tired.id, inputless.id].sort());
      expect(await db.requests.getRequest(fresh.id)).toMatchObject({
        queue: 'queued',
        progress: { percent: 0, stage: 'queued' },
      });
      // requeue puts one working conversion back (a shutdown before it could finish).
      await db.requests.claim(fresh.id, 500);
      await db.requests.requeue(fresh.id, 600);
      expect(await db.requests.countQueued()).toBe(1);
      for (const r of [fresh, tired, inputless]) await db.requests.finishFailed(r.id, failure, 700);
      expect(await db.requests.countQueued()).toBe(0);
    });

    it('expires artifacts once and knows which blob keys are still live', async () => {
      const r = convert();
      await db.requests.createRequest(r, []);
      await db.requests.claim(r.id, 1);
      const due = artifact(r.id, 'pdf', { expiresAt: 5_000 });
      const kept = artifact(r.id, 'zip', { expiresAt: 9_000_000_000_000 });
      await db.requests.finishSucceeded(r.id, [due, kept], 2);
      expect(await db.requests.artifact(r.id, 'zip')).toEqual(kept);
      expect(await db.requests.artifact(r.id, 'nope')).toBeUndefined();
      expect((await db.requests.artifacts(r.id)).map((a) => a.name)).toEqual(['pdf', 'zip']);
      expect(await db.requests.liveBlobKeys()).toEqual(expect.any(Set));
      let live = await db.requests.liveBlobKeys();
      expect([r.inputKey, due.blobKey, kept.blobKey].every((k) => live.has(k!))).toBe(true);
      const dueNow = await db.requests.dueArtifacts(6_000);
      expect(dueNow.filter((a) => a.requestId === r.id).map((a) => a.name)).toEqual(['pdf']);
      expect(await db.requests.markExpired(r.id, 'pdf')).toBe(true);
      expect(await db.requests.markExpired(r.id, 'pdf')).toBe(false);
      expect((await db.requests.artifact(r.id, 'pdf'))?.expired).toBe(true);
      expect((await db.requests.dueArtifacts(6_000)).some((a) => a.requestId === r.id)).toBe(false);
      await db.requests.clearInputKey(r.id);
      live = await db.requests.liveBlobKeys();
      expect([live.has(r.inputKey!), live.has(due.blobKey), live.has(kept.blobKey)]).toEqual([
        false,
        false,
        true,
      ]);
    });

    it('files a request with several inputs in order, all of them live until the input is cleared', async () => {
      const id = `req_${uid()}`;
      const inputs = [
        { key: `inputs/${id}`, filename: 'a.pdf', format: 'pdf', size: 10 },
        { key: `inputs/${id}.2`, filename: 'résumé.docx', format: 'docx', size: 20 },
        { key: `inputs/${id}.3`, filename: 'c.png', format: 'png', size: 30 },
      ];
      const r = convert({
        id,
        conversion: 'merge-pdf',
        from: undefined,
        to: 'pdf',
        inputKey: inputs[0]!.key,
        inputs,
      });
      await db.requests.createRequest(r, []);
      const read = await (await another()).requests.getRequest(id);
      expect(read).toMatchObject({
        conversion: 'merge-pdf',
        from: undefined,
        to: 'pdf',
        inputKey: inputs[0]!.key,
        inputs,
      });
      expect((await db.requests.recentByOwner(r.ownerHash!, 1))[0]?.inputs).toEqual(inputs);
      let live = await db.requests.liveBlobKeys();
      expect(inputs.every((i) => live.has(i.key))).toBe(true);
      const claimed = await db.requests.claim(id, 1_100);
      expect(claimed?.inputs).toEqual(inputs);
      await db.requests.clearInputKey(id);
      live = await db.requests.liveBlobKeys();
      expect(inputs.some((i) => live.has(i.key))).toBe(false);
      expect(await db.requests.finishFailed(id, failure, 1_200)).toBe(true);
    });

    it('counts finished conversions per pair, all time and since a moment', async () => {
      const key = `csv-json${uid().slice(0, 6)}`;
      const ends: [number, boolean][] = [
        [100, true],
        [200, false],
        [5_000, true],
      ];
      for (const [at, ok] of ends) {
        const r = convert({ conversion: key });
        await db.requests.createRequest(r, []);
        await db.requests.claim(r.id, at);
        if (ok) await db.requests.finishSucceeded(r.id, [], at);
        else await db.requests.finishFailed(r.id, failure, at);
      }
      const running = convert({ conversion: key });
      await db.requests.createRequest(running, []);
      const counts = (await db.requests.conversionCounts(1_000)).find((c) => c.key === key);
      expect(counts).toEqual({
        key,
        lastDay: { total: 1, succeeded: 1, failed: 0 },
        allTime: { total: 3, succeeded: 2, failed: 1 },
      });
      await db.requests.finishFailed(running.id, failure, 6_000);
    });

    it('keeps webhooks beside their requests, and answers writes when writable', async () => {
      const r = convert();
      await db.requests.createRequest(r, []);
      const hook = {
        requestId: r.id,
        url: 'https://hooks.example.com/x',
        events: ['succeeded'],
        baseUrl: 'https://f.example',
      };
      await db.requests.saveWebhook(hook);
      expect(await db.requests.webhook(r.id)).toEqual(hook);
      expect(await db.requests.webhook(`req_${uid()}`)).toBeUndefined();
      await expect(db.requests.checkWritable()).resolves.toBeUndefined();
      await db.requests.finishFailed(r.id, failure, 1);
    });

    it('keeps API keys by hash: find, list, touch, revoke once', async () => {
      const id = `key_${uid()}`;
      const hash = uid() + uid();
      await db.keys.createKey({ id, hash, prefix: 'fck_abcdef', label: 'robot', createdAt: 50 });
      expect(await db.keys.findByHash(hash)).toEqual({
        id,
        label: 'robot',
        prefix: 'fck_abcdef',
        createdAt: 50,
        lastUsedAt: undefined,
        revokedAt: undefined,
      });
      expect(await db.keys.findByHash(uid())).toBeUndefined();
      expect((await db.keys.listKeys()).some((k) => k.id === id)).toBe(true);
      await db.keys.touchKey(id, 60);
      expect((await db.keys.findByHash(hash))?.lastUsedAt).toBe(60);
      expect(await db.keys.revokeKey(id, 70)).toBe(true);
      expect(await db.keys.revokeKey(id, 80)).toBe(true);
      expect((await (await another()).keys.findByHash(hash))?.revokedAt).toBe(70);
      expect(await db.keys.revokeKey(`key_${uid()}`, 90)).toBe(false);
    });

    it('grants exactly what is left of a quota to 50 concurrent consumers on two connections', async () => {
      const identity = `ip:${uid()}`;
      const now = Date.parse('2026-03-10T12:00:00Z');
      const other = await another();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 ? other : db).quotas.consume(identity, 'conversions', 20, now),
        ),
      );
      expect(results.filter((r) => r.allowed)).toHaveLength(20);
      expect(results.every((r) => r.day === '2026-03-10' && r.resetAt === '2026-03-11T00:00:00.000Z')).toBe(
        true,
      );
      expect(await db.quotas.peek(identity, 'conversions', 20, now)).toMatchObject({
        allowed: false,
        remaining: 0,
      });
      // Kinds are counted apart, a limit of 0 refuses, and a refund goes to the day drawn from.
      expect((await db.quotas.consume(identity, 'voice', 1, now)).allowed).toBe(true);
      expect((await db.quotas.consume(identity, 'file_checks', 0, now)).allowed).toBe(false);
      expect(await db.quotas.refund(identity, { kind: 'conversions', day: utcDay(now) })).toBe(true);
      expect((await db.quotas.peek(identity, 'conversions', 20, now)).remaining).toBe(1);
      expect(await db.quotas.refund(identity, { kind: 'conversions', day: '2026-03-09' })).toBe(false);
      // A new day starts afresh.
      expect(
        (await db.quotas.consume(identity, 'conversions', 20, Date.parse('2026-03-11T00:00:00Z'))).remaining,
      ).toBe(19);
    });

    it('admits exactly the write limit to 50 concurrent writes, in a sliding window', async () => {
      const key = `ip:${uid()}`;
      const other = await another();
      const t0 = 1_000_000;
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 ? other : db).writeLimits.admit(key, 30, 60_000, t0 + (i % 5)),
        ),
      );
      expect(results.filter((r) => r.allowed)).toHaveLength(30);
      const refused = results.find((r) => !r.allowed)!;
      expect(refused).toMatchObject({ limit: 30, remaining: 0, windowSeconds: 60 });
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
      // Still refused just before a minute has passed since the first admission, admitted at once after.
      expect((await db.writeLimits.admit(key, 30, 60_000, t0 + 59_999)).allowed).toBe(false);
      const later = await db.writeLimits.admit(key, 30, 60_000, t0 + 60_010);
      expect(later.allowed).toBe(true);
      expect((await db.writeLimits.admit(`ip:${uid()}`, 30, 60_000, t0)).remaining).toBe(29);
    });

    it('makes a shared secret once: the same bytes on every call and connection; an adopted one wins only first', async () => {
      const name = `secret-${uid()}`;
      const first = await db.secrets.secret(name);
      expect(first).toHaveLength(32);
      const other = await another();
      const again = await Promise.all([
        db.secrets.secret(name),
        other.secrets.secret(name, Buffer.alloc(32, 1)),
      ]);
      expect(again.every((s) => s.equals(first))).toBe(true);
      const adopted = Buffer.alloc(32, 9);
      const named = `secret-${uid()}`;
      expect((await other.secrets.secret(named, adopted)).equals(adopted)).toBe(true);
      expect((await db.secrets.secret(named)).equals(adopted)).toBe(true);
      expect((await db.secrets.secret(`secret-${uid()}`)).equals(first)).toBe(false);
    });

    it('keeps recipes per owner by name: save, replace, get, list by name, delete', async () => {
      const owner = `owner-${uid()}`;
      const recipe = { name: 'scan', to: 'pdf', options: { ocr: true, lang: 'deu+eng' }, merge: false };
      const first = await db.recipes.saveRecipe({ ownerHash: owner, name: 'scan', recipe }, 100, 5);
      expect(first).toEqual({
        replaced: false,
        record: { ownerHash: owner, name: 'scan', recipe, createdAt: 100, updatedAt: 100 },
      });
      const changed = { ...recipe, options: { rotate: 90 } };
      const other = await another();
      const second = await other.recipes.saveRecipe(
        { ownerHash: owner, name: 'scan', recipe: changed },
        200,
        5,
      );
      expect(second).toMatchObject({ replaced: true, record: { createdAt: 100, updatedAt: 200 } });
      // Read back with its keys in the order they were written.
      const read = await db.recipes.getRecipe(owner, 'scan');
      expect(read).toEqual({
        ownerHash: owner,
        name: 'scan',
        recipe: changed,
        createdAt: 100,
        updatedAt: 200,
      });
      expect(Object.keys(read!.recipe)).toEqual(['name', 'to', 'options', 'merge']);
      await db.recipes.saveRecipe(
        { ownerHash: owner, name: 'a-first', recipe: { ...recipe, name: 'a-first' } },
        300,
        5,
      );
      await db.recipes.saveRecipe(
        { ownerHash: owner, name: 'b_2', recipe: { ...recipe, name: 'b_2' } },
        400,
        5,
      );
      expect((await db.recipes.listRecipes(owner)).map((r) => r.name)).toEqual(['a-first', 'b_2', 'scan']);
      // Another owner sees none of them, and may use the same names.
      const stranger = `owner-${uid()}`;
      expect(await db.recipes.listRecipes(stranger)).toEqual([]);
      expect(await db.recipes.getRecipe(stranger, 'scan')).toBeUndefined();
      expect(await db.recipes.deleteRecipe(stranger, 'scan')).toBe(false);
      expect(await db.recipes.deleteRecipe(owner, 'scan')).toBe(true);
      expect(await db.recipes.deleteRecipe(owner, 'scan')).toBe(false);
      expect(await db.recipes.getRecipe(owner, 'scan')).toBeUndefined();
      expect((await db.recipes.listRecipes(owner)).map((r) => r.name)).toEqual(['a-first', 'b_2']);
    });

    it('caps the recipes of an owner, exactly, under concurrent saves on two connections', async () => {
      const owner = `owner-${uid()}`;
      const other = await another();
      const save = (r: Records, name: string) =>
        r.recipes.saveRecipe({ ownerHash: owner, name, recipe: { name, to: 'pdf' } }, 1, 3);
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => save(i % 2 ? other : db, `r${i}`)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
      const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toMatchObject({ code: 'INVALID_REQUEST' });
      expect(await db.recipes.listRecipes(owner)).toHaveLength(3);
      // Replacing one at the cap is no new recipe: allowed.
      const kept = (await db.recipes.listRecipes(owner))[0]!.name;
      expect((await save(db, kept)).replaced).toBe(true);
      expect(await save(db, `x${uid()}`).catch((e) => e.code)).toBe('INVALID_REQUEST');
      // Another owner has a cap of its own.
      expect(
        (await db.recipes.saveRecipe({ ownerHash: `owner-${uid()}`, name: 'a', recipe: {} }, 1, 3)).replaced,
      ).toBe(false);
    });
  });
}
