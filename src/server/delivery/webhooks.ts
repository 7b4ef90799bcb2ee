import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { FileconvError, isFileconvError } from '../../errors/index.js';
import { checkHost, type PrivateAllowance, systemResolver } from '../../intake/guard.js';
import { createPinnedAgent, describeNetworkError } from '../../intake/pinned-agent.js';
import type { RequestStore, StoredWebhook } from '../../store/types.js';
import type { WebhookSpec } from '../http/schemas/meta.js';
import { requestView } from '../http/views.js';
import type { ConversionEnd, QueueObserver } from '../observability/conversion-trace.js';

/** The header a receiver checks: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`. */
export const SIGNATURE_HEADER = 'X-Fileconv-Signature';
/** Waits before the 1st, 2nd and 3rd retry: a receiver that is restarting gets about 20 s. */
export const DEFAULT_RETRY_DELAYS_MS = [1_000, 4_000, 16_000];
const ATTEMPT_TIMEOUT_MS = 10_000;

export function webhookSignature(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

export interface WebhookDeps {
  store: RequestStore;
  secret: string;
  /** Non-public targets: never in production; tests allow their own loopback receiver. */
  allowPrivate: PrivateAllowance;
  retryDelaysMs: readonly number[];
  log(message: string): void;
}

/** The URL as the timeline shows it: no query string, which may carry the receiver's own token. */
function shownUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/**
 * Sends the signed request JSON to a convert request's webhook when it ends. Where the URL points
 * is checked at submit and again before every attempt (DNS may have changed), with the same guard
 * as source URLs, and the connection goes to the address that was checked.
 */
export class WebhookDispatcher implements QueueObserver {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(private readonly deps: WebhookDeps) {}

  /** Refuses, at submit, a webhook URL that reaches a non-public address (INVALID_REQUEST). */
  async checkTarget(spec: WebhookSpec, signal: AbortSignal): Promise<void> {
    try {
      await this.pin(new URL(spec.url), signal);
    } catch (e) {
      if (!isFileconvError(e)) throw e;
      throw new FileconvError(
        'INVALID_REQUEST',
        e.message.replace(/^The source URL( host)?/, 'meta.webhook.url'),
      );
    }
  }

  register(requestId: string, spec: WebhookSpec, baseUrl: string): Promise<void> {
    return this.deps.store.saveWebhook({ requestId, url: spec.url, events: spec.events, baseUrl });
  }

  ended(end: ConversionEnd): void {
    const delivery = this.deliverEnd(end)
      .catch((e) => this.deps.log(`webhook of ${end.request.id} failed: ${(e as Error).message}`))
      .finally(() => this.inFlight.delete(delivery));
    this.inFlight.add(delivery);
  }

  private async deliverEnd(end: ConversionEnd): Promise<void> {
    const hook = await this.deps.store.webhook(end.request.id);
    if (hook?.events.includes(end.outcome)) await this.deliver(hook, end.outcome);
  }

  /** Resolves when no delivery is under way. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** At shutdown: deliveries waiting for a retry give up, and are recorded as such. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.idle();
  }

  private async pin(url: URL, signal: AbortSignal): Promise<Map<string, string>> {
    const address = await checkHost(url, {
      resolver: systemResolver,
      allowPrivate: this.deps.allowPrivate,
      signal,
    });
    return new Map([[url.hostname.replace(/^\[|\]$/g, ''), address]]);
  }

  private async deliver(hook: StoredWebhook, event: string): Promise<void> {
    const { store, retryDelaysMs } = this.deps;
    const r = await store.getRequest(hook.requestId);
    if (!r) return;
    const body = JSON.stringify(requestView(r, await store.artifacts(r.id), hook.baseUrl));
    const url = new URL(hook.url);
    const attempts = retryDelaysMs.length + 1;
    const note = (message: string) => store.addEvent(r.id, { at: Date.now(), kind: 'webhook', message });
    for (let n = 1; n <= attempts; n++) {
      const { outcome, retry } = await this.attempt(url, body, event, r.id);
      const last = n === attempts || !retry || this.stopping.signal.aborted;
      await note(
        `Webhook attempt ${n} of ${attempts} to ${shownUrl(url)}: ${outcome}${
          retry && !last ? `; retrying in ${retryDelaysMs[n - 1]! / 1000} s` : ''
        }.`,
      );
      if (last) return;
      await sleep(retryDelaysMs[n - 1]!, undefined, { signal: this.stopping.signal }).catch(() => {});
      if (this.stopping.signal.aborted) {
        await note('Webhook given up: the server shut down before the next attempt.');
        return;
      }
    }
  }

  /** One POST; `retry` for network errors and 5xx, not for answers the receiver meant. */
  private async attempt(
    url: URL,
    body: string,
    event: string,
    requestId: string,
  ): Promise<{ outcome: string; retry: boolean }> {
    const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]);
    let pinned: Map<string, string>;
    try {
      pinned = await this.pin(url, signal);
    } catch (e) {
      if (isFileconvError(e) && e.code === 'SOURCE_URL_BLOCKED')
        return { outcome: e.message.replace(/^The source URL/, 'refused: the URL'), retry: false };
      return { outcome: 'its host could not be resolved', retry: true };
    }
    const agent = createPinnedAgent(pinned, ATTEMPT_TIMEOUT_MS, ATTEMPT_TIMEOUT_MS);
    try {
      const res = await request(url, {
        method: 'POST',
        body,
        signal,
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'fileconv-webhook',
          'x-fileconv-event': event,
          'x-fileconv-request-id': requestId,
          [SIGNATURE_HEADER.toLowerCase()]: webhookSignature(
            this.deps.secret,
            body,
            Math.floor(Date.now() / 1000),
          ),
        },
      });
      await res.body.dump();
      return { outcome: `answered ${res.statusCode}`, retry: res.statusCode >= 500 };
    } catch (e) {
      return { outcome: `failed (${describeNetworkError(e)})`, retry: true };
    } finally {
      await agent.close().catch(() => {});
    }
  }
}
