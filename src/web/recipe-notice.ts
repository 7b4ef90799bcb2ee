// How recipes read on the page: their options in a line, and a refused save in the server's words.
import type { ApiError } from './api.js';
import { h } from './dom.js';
import { optionLabel } from './option-fields.js';

/** "rotate 90, ocr yes, lang deu+eng": a recipe's options in a line. */
export function describeOptions(options: Record<string, unknown> = {}): string {
  return Object.entries(options)
    .map(([name, value]) => {
      const shown =
        value === true
          ? 'yes'
          : value === false
            ? 'no'
            : typeof value === 'object'
              ? JSON.stringify(value)
              : value;
      return `${optionLabel(name).toLowerCase()} ${shown}`;
    })
    .join(', ');
}

/** A refused save: the server's own message (it names the option or field), then what to do. */
export function refusalNotice(error: ApiError): HTMLElement {
  const { option, code, message } = error.body;
  const notice = h(
    'div',
    { class: 'notice error', attrs: { role: 'alert', 'data-code': code } },
    h('strong', { text: 'The recipe was not saved' }),
    h('p', { attrs: { 'data-field': 'server-message' }, text: message ?? code }),
    h('p', {
      text: option
        ? `Change or empty the field ${optionLabel(option)}, then save again.`
        : 'Change what it names, then save again.',
    }),
    h('p', { class: 'meta', text: code }),
  );
  if (option) notice.dataset.option = option;
  return notice;
}
