import { describeChecks } from '../engine/checks.js';
import { ApiError, type Artifact, api, type RequestState, type TimelineEvent } from './api.js';
import { clear, h } from './dom.js';
import { formatBytes, formatClock, formatLocalTime, formatPercent } from './format.js';
import { errorNotice, type NoticeAction } from './notice.js';

const POLL_INTERVAL_MS = 1000;

const STAGES: Record<string, string> = {
  queued: 'Waiting in the queue',
  converting: 'Converting',
  storing: 'Saving the result',
  done: 'Done',
};

export interface ResultHooks {
  /** Extra buttons offered with a failed request (the OCR alternative). */
  actionsFor(state: RequestState): NoticeAction[];
  /** Called once a request has succeeded or failed. */
  settled(state: RequestState): void;
}

interface TrackingParts {
  status: HTMLElement;
  bar: HTMLProgressElement;
  stage: HTMLElement;
  timeline: HTMLOListElement;
  outcome: HTMLElement;
  shownEvents: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Shows one conversion: progress while it runs, its event trail, then downloads or the error. */
export class ResultView {
  private generation = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly hooks: ResultHooks,
  ) {}

  showBusy(label: string): void {
    this.generation++;
    clear(this.root);
    const bar = h('progress', { attrs: { max: '100', 'aria-label': 'Progress' } });
    this.root.append(h('p', { class: 'status-line', attrs: { role: 'status' }, text: label }), bar);
  }

  showError(error: ApiError, actions: NoticeAction[] = []): void {
    this.generation++;
    clear(this.root);
    this.root.append(errorNotice(error, actions));
  }

  /** Polls the request every second until it settles; a newer call stops an older loop. */
  async track(requestId: string, label: string, sizeBefore?: number): Promise<void> {
    const generation = ++this.generation;
    const parts = this.layout(requestId, label);
    let failuresInARow = 0;
    for (;;) {
      let state: RequestState;
      try {
        state = await api.request(requestId);
        failuresInARow = 0;
      } catch (error) {
        if (generation !== this.generation) return;
        const apiError = toApiError(error);
        // A dropped connection or a busy server is worth waiting out; anything else is final.
        if ((apiError.status === 0 || apiError.status === 503) && ++failuresInARow < 30) {
          parts.stage.textContent = 'Lost contact with the service, retrying…';
          await sleep(POLL_INTERVAL_MS * 2);
          continue;
        }
        parts.outcome.replaceChildren(errorNotice(apiError));
        parts.status.textContent = 'Could not read the conversion status';
        return;
      }
      if (generation !== this.generation) return;
      await this.refreshTimeline(requestId, parts, generation);
      if (generation !== this.generation) return;
      this.render(state, parts, label, sizeBefore);
      if (state.status !== 'running') {
        this.hooks.settled(state);
        return;
      }
      await sleep(POLL_INTERVAL_MS);
      if (generation !== this.generation) return;
    }
  }

  private layout(requestId: string, label: string): TrackingParts {
    clear(this.root);
    const parts: TrackingParts = {
      status: h('p', { class: 'status-line', attrs: { role: 'status', 'aria-live': 'polite' }, text: label }),
      bar: h('progress', { attrs: { max: '100', value: '0', 'aria-label': 'Progress' } }),
      stage: h('p', { class: 'stage', text: 'Starting…' }),
      timeline: h('ol', { class: 'timeline', attrs: { 'aria-label': 'Event trail' } }),
      outcome: h('div', { class: 'outcome', attrs: { 'aria-live': 'polite' } }),
      shownEvents: 0,
    };
    this.root.dataset.requestId = requestId;
    // A new request starts as running: the last one's status must not show beside the new id.
    this.root.dataset.status = 'running';
    this.root.append(
      parts.status,
      parts.bar,
      parts.stage,
      parts.outcome,
      h('h3', { class: 'meta', text: 'What happened' }),
      parts.timeline,
      h('p', { class: 'meta', text: `Request ${requestId}` }),
    );
    return parts;
  }

  private async refreshTimeline(requestId: string, parts: TrackingParts, generation: number): Promise<void> {
    let events: TimelineEvent[];
    try {
      events = (await api.timeline(requestId)).events ?? [];
    } catch {
      return; // the trail is a nicety; the status above still tells the story
    }
    if (generation !== this.generation) return;
    // Append only what is new, so the list grows instead of flickering.
    for (const event of events.slice(parts.shownEvents)) {
      parts.timeline.append(
        h(
          'li',
          { attrs: { 'data-kind': event.kind } },
          h('time', { attrs: { datetime: event.at }, text: formatClock(event.at) }),
          h('span', { text: event.message }),
        ),
      );
    }
    parts.shownEvents = Math.max(parts.shownEvents, events.length);
    parts.timeline.scrollTop = parts.timeline.scrollHeight;
  }

  private render(state: RequestState, parts: TrackingParts, label: string, sizeBefore?: number): void {
    const progress = state.progress ?? {};
    this.root.dataset.status = state.status;
    if (state.status === 'succeeded') {
      parts.status.textContent = `Done: ${label}`;
      parts.bar.value = 100;
      parts.stage.textContent = 'Your files are ready. Links work for 24 hours.';
      parts.outcome.replaceChildren(artifactList(state.artifacts ?? [], sizeBefore));
      return;
    }
    if (state.status === 'failed') {
      parts.status.textContent = `Failed: ${label}`;
      parts.bar.value = progress.percent ?? 0;
      parts.stage.textContent = 'The conversion stopped. It does not count against your quota.';
      const error = new ApiError(200, state.error ?? { code: 'CONVERT_FAILED' });
      parts.outcome.replaceChildren(errorNotice(error, this.hooks.actionsFor(state)));
      return;
    }
    if (typeof progress.percent === 'number') parts.bar.value = progress.percent;
    const stage = STAGES[progress.stage ?? ''] ?? 'Working';
    const step =
      progress.steps && progress.steps > 1 ? ` · step ${progress.step ?? 1} of ${progress.steps}` : '';
    parts.stage.textContent = `${stage}${step} · ${formatPercent(progress.percent ?? 0)}`;
  }
}

export function artifactList(artifacts: Artifact[], sizeBefore?: number): HTMLElement {
  // With several files the server adds one `zip` holding them all; offer it first.
  const ordered = [...artifacts].sort((a, b) => Number(b.name === 'zip') - Number(a.name === 'zip'));
  return h(
    'ul',
    { class: 'artifacts', attrs: { 'aria-label': 'Downloads' } },
    ...ordered.map((artifact) => {
      const title = artifact.name === 'zip' && ordered.length > 1 ? 'All files (zip)' : artifact.name;
      const details = [artifact.format, formatBytes(artifact.size)].filter(Boolean).join(' · ');
      const href = safeHref(artifact.download);
      if (artifact.expired || !href) {
        return h(
          'li',
          {},
          h('span', { text: title }),
          h('span', {
            class: 'meta',
            text: `${details} · ${artifact.expired ? 'expired' : 'no download link'}`,
          }),
        );
      }
      return h(
        'li',
        { attrs: { 'data-artifact': artifact.name } },
        h('a', { attrs: { href, download: '' }, text: `Download ${title}` }),
        h('span', { class: 'meta', text: details }),
        ...keptLine(artifact),
        ...sizeLine(artifact, sizeBefore),
        h('span', { class: 'meta', text: `until ${formatLocalTime(artifact.expires_at)}` }),
      );
    }),
  );
}

/** "2 pages, 1 picture, 99% of the words" when the server measured what the artifact kept. */
function keptLine(artifact: Artifact): HTMLElement[] {
  const kept = artifact.checks && describeChecks(artifact.checks);
  return kept ? [h('span', { class: 'meta kept', attrs: { 'data-checks': '' }, text: kept })] : [];
}

/** "12.0 MB → 1.1 MB, 91% smaller": the input's size against the artifact's, for compression. */
function sizeLine(artifact: Artifact, before: number | undefined): HTMLElement[] {
  if (before === undefined || artifact.size === undefined || artifact.name === 'zip') return [];
  const change = before > 0 ? Math.round((1 - artifact.size / before) * 100) : 0;
  const verdict = change > 0 ? `${change}% smaller` : change < 0 ? `${-change}% larger` : 'the same size';
  return [
    h('span', {
      class: 'meta size-change',
      attrs: { 'data-size-before': String(before), 'data-size-after': String(artifact.size) },
      text: `${formatBytes(before)} → ${formatBytes(artifact.size)}, ${verdict}`,
    }),
  ];
}

/** Only http(s) links from the API become clickable; anything else is dropped. */
export function safeHref(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url, location.href);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(0, {
    code: 'CLIENT_ERROR',
    message: error instanceof Error ? error.message : String(error),
  });
}
