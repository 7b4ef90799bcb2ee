import type { Hono } from 'hono';
import { FileconvError } from '../../../errors/index.js';
import { isRequestId, sha256Hex, signedFileLink } from '../../access/tokens.js';
import type { AppEnv, ServerContext } from '../../context.js';
import { POLL_ROUTE } from '../kept-polls.js';
import { parseOrThrow } from '../schemas/issues.js';
import { ownerTokenSchema, RECENT_DEFAULT, recentLimitSchema } from '../schemas/query.js';
import { baseUrl, recentView, requestView, timelineText, timelineView } from '../views.js';
import { awaitEnd, MAX_READ_WAIT_SECONDS, waitMs } from '../wait.js';

const JSON_NO_STORE = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } as const;

export function registerRequestRoutes(app: Hono<AppEnv>, ctx: ServerContext): void {
  const { store } = ctx;

  const load = async (id: string) => {
    const r = isRequestId(id) ? await store.getRequest(id) : undefined;
    if (!r) throw new FileconvError('REQUEST_NOT_FOUND');
    return r;
  };

  // Before /requests/:id, so "recent" is never read as an id.
  app.get('/api/public/requests/recent', async (c) => {
    const token = parseOrThrow(ownerTokenSchema, c.req.header('x-owner-token'), { root: 'X-Owner-Token' });
    const limit = parseOrThrow(recentLimitSchema, c.req.query('limit'), { root: 'limit' }) ?? RECENT_DEFAULT;
    return c.json({ requests: (await store.recentByOwner(sha256Hex(token), limit)).map(recentView) });
  });

  // With ?wait=N the answer is held until the request is no longer running (succeeded or failed)
  // or N seconds pass; the queue's change signal wakes it, and the store is read again to answer.
  // A finished request's answer is kept rendered (see finished-answers.ts): polls of ended
  // conversions are most of the traffic, and they skip the store and the JSON. An anonymous poll
  // of a kept answer is usually answered before it reaches this route (kept-polls.ts).
  const answers = ctx.finishedAnswers;
  app.get(POLL_ROUTE, async (c) => {
    const id = c.req.param('id');
    const wait = waitMs(c.req.query('wait'), MAX_READ_WAIT_SECONDS);
    const base = baseUrl(c, ctx.config);
    const kept = answers.get(id, base);
    if (kept) return c.body(kept, 200, JSON_NO_STORE);
    let r = await load(id);
    if (r.status === 'running') r = (await awaitEnd(ctx, id, wait, c.req.raw.signal)) ?? r;
    const artifacts = await store.artifacts(r.id);
    const body = Buffer.from(JSON.stringify(requestView(r, artifacts, base)));
    answers.keep(r, artifacts, base, body);
    return c.body(body, 200, JSON_NO_STORE);
  });

  app.get('/api/public/requests/:id/artifacts/:name', async (c) => {
    const r = await load(c.req.param('id'));
    const name = c.req.param('name');
    if (r.status === 'failed') {
      throw new FileconvError('CONVERT_FAILED', r.error?.message ?? 'The conversion failed.', {
        extra: { detail: r.error?.code ?? 'CONVERT_FAILED' },
      });
    }
    const artifact = await store.artifact(r.id, name);
    if (!artifact) {
      throw new FileconvError(
        'ARTIFACT_NOT_FOUND',
        r.status === 'running'
          ? 'The conversion is still running; poll the request until it has succeeded.'
          : undefined,
      );
    }
    if (artifact.expired) throw new FileconvError('ARTIFACT_EXPIRED');
    c.header('Cache-Control', 'no-store');
    return c.redirect(signedFileLink(ctx.signer, baseUrl(c, ctx.config), r.id, artifact.name).url, 302);
  });

  app.get('/api/public/requests/:id/timeline', async (c) => {
    const r = await load(c.req.param('id'));
    const events = await store.timeline(r.id);
    c.header('Cache-Control', 'no-store');
    const accept = c.req.header('accept') ?? '';
    if (/\btext\/plain\b/.test(accept) && !/application\/json/.test(accept)) {
      return c.text(timelineText(events), 200, { 'Content-Type': 'text/plain; charset=utf-8' });
    }
    return c.json(timelineView(r.id, events));
  });
}
