import type { Catalog } from './catalog.js';
import { clear, h } from './dom.js';

const FAMILY_LABELS: Record<string, string> = {
  ocr: 'Text recognition (OCR)',
  voice: 'Speech',
};

export interface TargetViewHooks {
  convert(conversionKey: string): void;
}

/** The target formats for one source, grouped by family, lossy ones marked. */
export class TargetView {
  constructor(
    private readonly root: HTMLElement,
    private readonly hooks: TargetViewHooks,
  ) {}

  reset(message: string): void {
    clear(this.root);
    this.root.append(h('p', { class: 'placeholder', text: message }));
  }

  show(source: string, catalog: Catalog): void {
    clear(this.root);
    const groups = catalog.byFamily(source);
    if (groups.size === 0) {
      this.reset(`There is no conversion from ${source} on this server.`);
      return;
    }
    const form = h('form', { attrs: { id: 'target-form' } });
    let first = true;
    for (const [family, conversions] of groups) {
      const fieldset = h(
        'fieldset',
        { class: 'family', attrs: { 'data-family': family } },
        h('legend', { text: FAMILY_LABELS[family] ?? family }),
      );
      const row = h('div', { class: 'targets' });
      for (const conversion of conversions) {
        const radio = h('input', {
          attrs: { type: 'radio', name: 'conversion', value: conversion.key, 'data-to': conversion.to },
        });
        if (first) radio.checked = true;
        first = false;
        const lossy = catalog.isLossy(conversion.key);
        row.append(
          h(
            'label',
            {
              class: 'target',
              attrs: { title: lossy ? 'Lossy: some quality or detail is lost' : 'Lossless' },
            },
            radio,
            conversion.to,
            lossy && h('span', { class: 'badge lossy', text: 'lossy' }),
          ),
        );
      }
      fieldset.append(row);
      form.append(fieldset);
    }
    const button = h('button', {
      class: 'primary',
      attrs: { type: 'submit', id: 'convert-button' },
      text: 'Convert',
    });
    form.append(h('div', { class: 'convert-row' }, button));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const chosen = form.querySelector<HTMLInputElement>('input[name="conversion"]:checked');
      if (chosen) this.hooks.convert(chosen.value);
    });
    this.root.append(form);
  }

  setBusy(busy: boolean): void {
    const button = this.root.querySelector<HTMLButtonElement>('#convert-button');
    if (button) button.disabled = busy;
  }
}
