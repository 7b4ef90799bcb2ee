import { api, type RequestState } from './api.js';
import { clear, h } from './dom.js';
import { formatLocalTime } from './format.js';
import { errorNotice } from './notice.js';
import { toApiError } from './result-view.js';

export interface RecentViewHooks {
  open(request: RequestState): void;
}

/** This device's recent conversions, found through the owner token kept in the browser. */
export class RecentView {
  constructor(
    private readonly root: HTMLElement,
    private readonly hooks: RecentViewHooks,
  ) {}

  async refresh(): Promise<void> {
    let requests: RequestState[];
    try {
      requests = (await api.recent(20)).requests ?? [];
    } catch (error) {
      clear(this.root);
      this.root.append(errorNotice(toApiError(error)));
      return;
    }
    clear(this.root);
    if (requests.length === 0) {
      this.root.append(h('p', { class: 'placeholder', text: 'None yet.' }));
      return;
    }
    const list = h('ul', { class: 'recent' });
    for (const request of requests) {
      // File checks are listed too; only conversions have a result worth opening again.
      let open: HTMLButtonElement | null = null;
      if (request.conversion) {
        open = h('button', { attrs: { type: 'button' }, text: 'Show' });
        open.addEventListener('click', () => this.hooks.open(request));
      }
      list.append(
        h(
          'li',
          { attrs: { 'data-request-id': request.request_id } },
          h('span', { text: describe(request.conversion) }),
          h('span', { class: `badge ${request.status}`, text: request.status }),
          h('time', {
            class: 'meta',
            attrs: { datetime: request.created_at ?? '' },
            text: formatLocalTime(request.created_at),
          }),
          open,
        ),
      );
    }
    this.root.append(list);
  }
}

export function describe(conversion: string | null | undefined): string {
  if (!conversion) return 'file check';
  const dash = conversion.indexOf('-');
  return dash > 0 ? `${conversion.slice(0, dash)} → ${conversion.slice(dash + 1)}` : conversion;
}
