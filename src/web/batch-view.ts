import { type Artifact, api, type ConvertMeta } from './api.js';
import { BatchRow } from './batch-row.js';
import type { Catalog } from './catalog.js';
import { clear, h } from './dom.js';
import { formatBytes } from './format.js';
import { safeHref } from './result-view.js';
import { USUAL_TARGETS } from './target-view.js';
import { buildZip, entryNames, saveBlob, type ZipSource } from './zip-download.js';

/** Uploads at once: enough to keep the server busy, few enough not to starve the polls. */
const PARALLEL_UPLOADS = 3;

interface Chosen {
  file: File;
  /** What the server detected (or the name says), once known. */
  source: string | null;
}

function stem(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** A result's file name: "report.pdf", or "report-2.pdf" for the second part of a split. */
function resultName(base: string, artifact: Artifact): string {
  const part = /-(\d+)$/.exec(artifact.name)?.[1];
  const format = artifact.format ?? artifact.name.replace(/-\d+$/, '');
  return `${base}${part ? `-${part}` : ''}.${format}`;
}

/** The files a request made, without the server's own ZIP when it also lists them one by one. */
function filesOf(artifacts: readonly Artifact[]): Artifact[] {
  const files = artifacts.filter((a) => a.name !== 'zip' && !a.expired);
  return files.length > 0 ? files : artifacts.filter((a) => !a.expired);
}

/**
 * Several files at once: each converted by its own request with its own progress row, or all
 * merged into one PDF by one request, in the order the visitor sets; then one ZIP of every result.
 */
export class BatchView {
  private files: Chosen[] = [];
  private rows: BatchRow[] = [];
  private generation = 0;
  private readonly list = h('ol', {
    class: 'batch-files',
    attrs: { id: 'batch-files', 'aria-label': 'Chosen files, in order' },
  });
  private readonly target = h('select', { attrs: { id: 'batch-target' } });
  private readonly convertButton = h('button', {
    class: 'primary',
    attrs: { type: 'submit', id: 'batch-convert' },
    text: 'Convert all',
  });
  private readonly mergeButton = h('button', {
    attrs: { type: 'button', id: 'merge-button' },
    text: 'Merge into one PDF',
  });
  private readonly results = h('ul', {
    class: 'batch-results',
    attrs: { id: 'batch-results', 'aria-label': 'Results' },
  });
  private readonly zipButton = h('button', {
    attrs: { type: 'button', id: 'download-zip', hidden: '' },
    text: 'Download all (ZIP)',
  });
  private readonly zipStatus = h('p', { class: 'meta', attrs: { id: 'zip-status', role: 'status' } });

  constructor(
    private readonly root: HTMLElement,
    private readonly catalog: () => Catalog,
    private readonly settled: () => void,
  ) {
    const form = h(
      'form',
      { class: 'batch-actions', attrs: { id: 'batch-form' } },
      h('label', { attrs: { for: 'batch-target' }, text: 'Convert each to' }),
      this.target,
      this.convertButton,
      this.mergeButton,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.convertAll();
    });
    this.mergeButton.addEventListener('click', () => void this.merge());
    this.zipButton.addEventListener('click', () => void this.downloadAll());
    this.root.append(
      h('p', {
        class: 'hint',
        text: 'Each file is converted on its own. Merging puts them all into one PDF, in this order.',
      }),
      this.list,
      form,
      this.results,
      h('div', { class: 'zip-row' }, this.zipButton, this.zipStatus),
    );
  }

  /** Takes a new set of files: lists them, checks what each is, and offers their common targets. */
  show(files: readonly File[]): void {
    this.generation++;
    this.files = files.map((file) => ({ file, source: null }));
    this.rows = [];
    clear(this.results);
    this.zipButton.hidden = true;
    this.zipStatus.textContent = '';
    this.renderList();
    void this.detectAll(this.generation);
  }

  private async detectAll(generation: number): Promise<void> {
    this.convertButton.disabled = true;
    this.fillTargets();
    for (const chosen of this.files) {
      try {
        chosen.source = (await api.detect(chosen.file)).report.detected;
      } catch {
        // Without a check the name is all there is to go by.
        const guess = extensionOf(chosen.file.name);
        chosen.source = this.catalog().sources().includes(guess) ? guess : '';
      }
      if (generation !== this.generation) return;
      this.showSource(chosen);
    }
    this.fillTargets();
    this.convertButton.disabled = this.target.options.length === 0;
    this.settled();
  }

  /** The targets every chosen file can become, the usual ones first. */
  private fillTargets(): void {
    clear(this.target);
    if (this.files.some((f) => !f.source)) {
      this.target.append(h('option', { attrs: { value: '' }, text: 'Checking the files…' }));
      return;
    }
    const lists = this.files.map((f) => new Set(this.catalog().targetsOf(f.source ?? '')));
    const common = [...(lists[0] ?? [])].filter((t) => lists.every((l) => l.has(t)));
    const rank = (t: string) => (USUAL_TARGETS.includes(t) ? USUAL_TARGETS.indexOf(t) : USUAL_TARGETS.length);
    common.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
    if (common.length === 0)
      this.target.append(h('option', { attrs: { value: '' }, text: 'no format in common' }));
    for (const to of common) this.target.append(h('option', { attrs: { value: to }, text: to }));
  }

  /** Updates one file's line in place, so a button the keyboard is on stays where it is. */
  private showSource(chosen: Chosen): void {
    const index = this.files.indexOf(chosen);
    const meta = this.list.children[index]?.querySelector('.meta');
    if (meta) meta.textContent = this.describe(chosen);
  }

  private describe(chosen: Chosen): string {
    const type = chosen.source === null ? 'checking…' : chosen.source || 'unknown type';
    return `${formatBytes(chosen.file.size)} · ${type}`;
  }

  private renderList(): void {
    clear(this.list);
    this.files.forEach((chosen, i) => {
      const name = chosen.file.name;
      const move = (by: number, label: string, symbol: string) => {
        const button = h('button', {
          class: 'small',
          attrs: { type: 'button', 'aria-label': `${label}: ${name}`, 'data-move': String(by) },
          text: symbol,
        });
        button.disabled = i + by < 0 || i + by >= this.files.length;
        button.addEventListener('click', () => this.move(i, by));
        return button;
      };
      const remove = h('button', {
        class: 'small',
        attrs: { type: 'button', 'aria-label': `Remove ${name}`, 'data-remove': '' },
        text: 'Remove',
      });
      remove.addEventListener('click', () => this.remove(i));
      this.list.append(
        h(
          'li',
          { attrs: { 'data-file': name } },
          h('span', { class: 'file-name', text: name }),
          h('span', { class: 'meta', text: this.describe(chosen) }),
          h('span', { class: 'file-actions' }, move(-1, 'Move up', '↑'), move(1, 'Move down', '↓'), remove),
        ),
      );
    });
    this.mergeButton.hidden = this.files.length < 2;
  }

  private move(index: number, by: number): void {
    const [chosen] = this.files.splice(index, 1);
    if (!chosen) return;
    this.files.splice(index + by, 0, chosen);
    this.renderList();
    // Keep the keyboard where it was: on the same button of the file just moved.
    const selector = `li[data-file="${CSS.escape(chosen.file.name)}"] button[data-move="${by}"]`;
    const same = this.list.querySelectorAll<HTMLButtonElement>(selector)[0];
    (same && !same.disabled
      ? same
      : this.list.querySelector<HTMLButtonElement>(`li:nth-child(${index + by + 1}) button:not(:disabled)`)
    )?.focus();
  }

  private remove(index: number): void {
    this.files.splice(index, 1);
    this.renderList();
    this.fillTargets();
  }

  private addRow(label: string, base: string): BatchRow {
    const row = new BatchRow(label, base);
    this.results.append(row.element);
    this.rows.push(row);
    return row;
  }

  /** Sends one request for the row and follows it; the ZIP button counts what it brings. */
  private async run(row: BatchRow, meta: ConvertMeta, files: File[], generation: number): Promise<void> {
    const settled = await row.run(meta, files, () => generation === this.generation);
    if (generation !== this.generation) return;
    this.updateZip();
    if (settled) this.settled();
  }

  private async convertAll(): Promise<void> {
    const to = this.target.value;
    if (!to) return;
    const generation = this.generation;
    const queue = this.files.map((chosen) => ({
      chosen,
      row: this.addRow(`${chosen.file.name} → ${to}`, stem(chosen.file.name)),
    }));
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        await this.run(
          next.row,
          { conversion: `${next.chosen.source}-${to}` },
          [next.chosen.file],
          generation,
        );
      }
    };
    await Promise.all(Array.from({ length: PARALLEL_UPLOADS }, worker));
  }

  /** One request with every file as its own `file` part, in the order of the list. */
  private async merge(): Promise<void> {
    const files = this.files.map((f) => f.file);
    const row = this.addRow(`Merge of ${files.length} files → pdf`, 'merged');
    await this.run(row, { to: 'pdf', options: {} }, files, this.generation);
  }

  /** Every result of every finished row, named after its input. */
  private zipSources(): ZipSource[] {
    const found = this.rows.flatMap((row) =>
      filesOf(row.artifacts).flatMap((artifact) => {
        const url = safeHref(artifact.download);
        return url ? [{ name: resultName(row.base, artifact), url }] : [];
      }),
    );
    const names = entryNames(found.map((f) => f.name));
    return found.map((f, i) => ({ name: names[i]!, url: f.url }));
  }

  private updateZip(): void {
    const count = this.zipSources().length;
    this.zipButton.hidden = count < 2;
    this.zipButton.textContent = `Download all (ZIP, ${count} files)`;
  }

  private async downloadAll(): Promise<void> {
    const sources = this.zipSources();
    this.zipButton.disabled = true;
    try {
      const blob = await buildZip(sources, (done) => {
        this.zipStatus.textContent = `Packing ${done} of ${sources.length}…`;
      });
      saveBlob(blob, 'fileconv-results.zip');
      this.zipStatus.textContent = `ZIP of ${sources.length} files ready (${formatBytes(blob.size)}).`;
    } catch (error) {
      this.zipStatus.textContent = `The ZIP could not be made: ${(error as Error).message} Download the files one by one above.`;
    } finally {
      this.zipButton.disabled = false;
    }
  }
}
