import type { ApiError } from './api.js';
import { h } from './dom.js';
import { explain } from './errors.js';

export interface NoticeAction {
  label: string;
  run: () => void;
}

export function warningNotice(title: string, ...lines: string[]): HTMLElement {
  return h(
    'div',
    { class: 'notice', attrs: { role: 'status' } },
    h('strong', { text: title }),
    ...lines.map((line) => h('p', { text: line })),
  );
}

/** An error as a person wants it: what happened, then what to do, with the code for searching. */
export function errorNotice(error: ApiError, actions: NoticeAction[] = []): HTMLElement {
  const { title, what, todo } = explain(error.body, error.status);
  const serverMessage = error.body.message && error.body.message !== what ? error.body.message : null;
  return h(
    'div',
    { class: 'notice error', attrs: { role: 'alert', 'data-code': error.body.code } },
    h('strong', { text: title }),
    h('p', { text: what }),
    h('p', { text: todo }),
    h('p', { class: 'meta', text: serverMessage ? `${error.body.code}: ${serverMessage}` : error.body.code }),
    actions.length > 0 &&
      h(
        'div',
        { class: 'actions' },
        ...actions.map((action) => {
          const button = h('button', { attrs: { type: 'button' }, text: action.label });
          button.addEventListener('click', action.run);
          return button;
        }),
      ),
  );
}
