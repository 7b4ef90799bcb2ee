import type { DetectReport } from './api.js';
import { clear, h } from './dom.js';
import { formatBytes } from './format.js';
import { warningNotice } from './notice.js';

export interface DetectViewHooks {
  /** The visitor picked another source format than the detected one. */
  sourceChanged(source: string): void;
}

/** Declared versus detected type of the dropped file, and the source format to convert from. */
export class DetectView {
  constructor(
    private readonly root: HTMLElement,
    private readonly hooks: DetectViewHooks,
  ) {}

  showChecking(file: File): void {
    clear(this.root);
    this.root.append(
      h('p', { class: 'status-line', attrs: { role: 'status' }, text: `Checking ${file.name}…` }),
      h('p', { class: 'meta', text: formatBytes(file.size) }),
    );
  }

  showReport(file: File, report: DetectReport, sources: string[]): void {
    clear(this.root);
    const facts = h(
      'dl',
      { class: 'facts' },
      h('dt', { text: 'File' }),
      h('dd', { text: `${file.name} (${formatBytes(file.size)})` }),
      h('dt', { text: 'Declared' }),
      h('dd', { attrs: { 'data-field': 'declared' }, text: report.declared || 'nothing (no extension)' }),
      h('dt', { text: 'Detected' }),
      h(
        'dd',
        { attrs: { 'data-field': 'detected' } },
        `${report.detected} (${report.mime}, ${Math.round((report.confidence ?? 0) * 100)}% sure)`,
      ),
    );
    this.root.append(facts);
    if (!report.match) {
      const unknown = report.detected === 'bin';
      this.root.append(
        warningNotice(
          'The name does not match the content',
          unknown
            ? `This file is named like ${article(report.declared)}, but its content is not a type this service recognizes.`
            : `This file is named like ${article(report.declared)} but it really is ${article(report.detected)}.`,
          unknown
            ? 'If you are sure of its type, choose it below; the conversion may fail if the file is damaged.'
            : `It will be converted as ${report.detected}. If you trust the name more, choose the source format below.`,
        ),
      );
      this.root.querySelector('.notice')?.setAttribute('data-warning', 'mismatch');
    } else {
      this.root.append(h('p', { class: 'meta', text: 'The name and the content agree.' }));
    }
    this.root.append(this.sourcePicker(report.detected, sources));
  }

  private sourcePicker(detected: string, sources: string[]): HTMLElement {
    const select = h('select', { attrs: { id: 'source-format' } });
    const options = sources.includes(detected) ? sources : [detected, ...sources];
    for (const source of options) {
      select.append(h('option', { attrs: { value: source }, text: source }));
    }
    select.value = detected;
    select.addEventListener('change', () => this.hooks.sourceChanged(select.value));
    return h(
      'div',
      { class: 'source-row' },
      h('label', { attrs: { for: 'source-format' }, text: 'Convert it as' }),
      select,
    );
  }
}

function article(format: string): string {
  if (!format) return 'an unknown type';
  return `${/^[aeiou]/i.test(format) ? 'an' : 'a'} ${format.toUpperCase()} file`;
}
