import { ApiError, type Artifact, api, type ConvertMeta, type RequestState } from './api.js';
import { h } from './dom.js';
import { formatPercent } from './format.js';
import { errorNotice } from './notice.js';
import { artifactList, toApiError } from './result-view.js';

const POLL_INTERVAL_MS = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request of several: its label, a progress bar, then its downloads or its error. */
export class BatchRow {
  readonly element: HTMLLIElement;
  private readonly bar: HTMLProgressElement;
  private readonly status: HTMLElement;
  private readonly outcome: HTMLElement;
  artifacts: Artifact[] = [];

  constructor(
    label: string,
    /** The start of every result's name in the ZIP: the input's name without its extension. */
    readonly base: string,
  ) {
    this.element = h('li', { class: 'batch-row', attrs: { 'data-status': 'uploading' } });
    this.bar = h('progress', { attrs: { max: '100', 'aria-label': `Progress: ${label}` } });
    this.status = h('span', { class: 'meta', text: 'Uploading…' });
    this.outcome = h('div', { class: 'outcome' });
    this.element.append(h('strong', { text: label }), this.bar, this.status, this.outcome);
  }

  /**
   * Sends the request and polls it about once a second while `alive()`; true once it settled.
   * A dropped connection or a busy server is waited out; anything else is shown as final.
   */
  async run(meta: ConvertMeta, files: File[], alive: () => boolean): Promise<boolean> {
    let id: string;
    try {
      id = (await api.convert(meta, files)).request_id;
    } catch (error) {
      this.show({ request_id: '', status: 'failed', error: toApiError(error).body });
      return true;
    }
    this.element.dataset.requestId = id;
    for (let misses = 0; alive(); ) {
      let state: RequestState;
      try {
        state = await api.request(id);
      } catch (error) {
        const apiError = toApiError(error);
        if ((apiError.status === 0 || apiError.status === 503) && ++misses < 30) {
          await sleep(POLL_INTERVAL_MS * 2);
          continue;
        }
        this.show({ request_id: id, status: 'failed', error: apiError.body });
        return true;
      }
      if (!alive()) return false;
      this.show(state);
      if (state.status !== 'running') return true;
      await sleep(POLL_INTERVAL_MS);
    }
    return false;
  }

  private show(state: RequestState): void {
    this.element.dataset.status = state.status;
    if (state.status === 'succeeded') {
      this.bar.value = 100;
      this.status.textContent = 'Done';
      this.artifacts = state.artifacts ?? [];
      this.outcome.replaceChildren(artifactList(this.artifacts));
    } else if (state.status === 'failed') {
      this.status.textContent = 'Failed';
      this.outcome.replaceChildren(errorNotice(new ApiError(200, state.error ?? { code: 'CONVERT_FAILED' })));
    } else {
      const percent = state.progress?.percent;
      if (typeof percent === 'number') this.bar.value = percent;
      this.status.textContent = `Converting · ${formatPercent(percent ?? 0)}`;
    }
  }
}
