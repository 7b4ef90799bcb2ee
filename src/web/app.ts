import { ApiError, api, type ConvertMeta, credentials, type RequestState } from './api.js';
import { BatchView } from './batch-view.js';
import { Catalog } from './catalog.js';
import { curlCommands } from './curl-view.js';
import { DetectView } from './detect-view.js';
import { byId, clear, h } from './dom.js';
import { errorNotice, type NoticeAction, warningNotice } from './notice.js';
import { FILE_OPTIONS } from './option-fields.js';
import { PdfToolsView } from './pdf-tools.js';
import { describe, RecentView } from './recent-view.js';
import { RecipesView } from './recipes-view.js';
import { ResultView, toApiError } from './result-view.js';
import { TargetView } from './target-view.js';

interface PageState {
  catalog: Catalog;
  file: File | null;
  source: string | null;
  /** The last submitted conversion, so a failed one can be retried another way (OCR). */
  last: { meta: ConvertMeta; file?: File } | null;
}

interface SubmitExtras {
  /** Compare the result's size with the input's (compression). */
  compareSize?: boolean;
  /** Files of options, by the part they go as (a stamp picture, a signing certificate). */
  optionFiles?: Record<string, File>;
}

const state: PageState = { catalog: Catalog.empty(), file: null, source: null, last: null };

const targetView = new TargetView(byId('target-panel'), {
  convert: (key, options, recipe) => void convertFile(key, options, recipe),
  recipeLeft: () => recipesView.clearChoice(),
});
const recipesView = new RecipesView(byId('recipe-choice'), byId('recipes-panel'), targetView);
const pdfTools = new PdfToolsView(byId('pdf-tools'), {
  run(tool, options) {
    if (!state.file) return;
    const file = state.file;
    showCurl(file.name, 'pdf-pdf');
    // A file chosen for an option (a stamp picture, a certificate) goes as a part of its own.
    const rest: Record<string, unknown> = {};
    const optionFiles: Record<string, File> = {};
    for (const [name, value] of Object.entries(options)) {
      const part = FILE_OPTIONS[name]?.part;
      if (part && value instanceof File) optionFiles[part] = value;
      else rest[name] = value;
    }
    void submit({ conversion: 'pdf-pdf', options: rest }, file, `${file.name}: ${tool.title.toLowerCase()}`, {
      compareSize: tool.compareSize,
      optionFiles,
    });
  },
});
const detectView = new DetectView(byId('detect-panel'), {
  sourceChanged(source) {
    state.source = source;
    showSourceTools(source);
  },
});
const batchView = new BatchView(
  byId('batch-panel'),
  () => state.catalog,
  () => void recentView.refresh(),
);

/** The targets of a source format and, for a PDF, its tools. */
function showSourceTools(source: string): void {
  targetView.show(source, state.catalog);
  // Recipes need a target to set: none while the file is checked or has no conversion.
  recipesView.show(document.getElementById('target-form') ? source : '', state.catalog);
  const section = byId('pdf-tools-section');
  if (source === 'pdf') {
    pdfTools.show(state.catalog);
    section.hidden = byId('pdf-tools').hidden;
  } else {
    pdfTools.hide();
    section.hidden = true;
  }
}

/** One file shows its check, targets and tools; several show the list of files instead. */
function showMode(several: boolean): void {
  for (const card of Array.from(document.querySelectorAll<HTMLElement>('section.single')))
    card.hidden = several;
  byId('batch-section').hidden = !several;
  if (several) return;
  byId('pdf-tools-section').hidden = state.source !== 'pdf' || byId('pdf-tools').hidden;
}

function chooseFiles(files: readonly File[]): void {
  if (files.length === 0) return;
  if (files.length === 1) {
    showMode(false);
    void checkFile(files[0]!);
    return;
  }
  state.file = null;
  showMode(true);
  batchView.show(files);
}
const resultView = new ResultView(byId('result-panel'), {
  actionsFor: ocrActions,
  settled: () => void recentView.refresh(),
});
const recentView = new RecentView(byId('recent-panel'), {
  open(request: RequestState) {
    // The result panel is the single file's: show it, even after several files were chosen.
    showMode(false);
    void resultView.track(request.request_id, describe(request.conversion));
  },
});

function showCurl(fileName?: string, conversion?: string): void {
  byId('curl-commands').textContent = curlCommands(location.origin, fileName, conversion);
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

async function checkFile(file: File): Promise<void> {
  state.file = file;
  state.source = null;
  showSourceTools('');
  detectView.showChecking(file);
  targetView.reset('Waiting for the file check…');
  try {
    const { report } = await api.detect(file);
    if (state.file !== file) return;
    state.source = report.detected;
    detectView.showReport(file, report, state.catalog.sources());
    showSourceTools(report.detected);
  } catch (error) {
    if (state.file !== file) return;
    // Without a check the visitor can still convert, trusting the file's name.
    const panel = byId('detect-panel');
    clear(panel);
    panel.append(errorNotice(toApiError(error)));
    const guess = extensionOf(file.name);
    if (state.catalog.sources().includes(guess)) {
      state.source = guess;
      panel.append(h('p', { class: 'meta', text: `Going by its name, this is ${guess}.` }));
      showSourceTools(guess);
    } else {
      targetView.reset('Check the file again to see what it can become.');
    }
  }
  void recentView.refresh();
}

async function submit(
  meta: ConvertMeta,
  file: File | undefined,
  label: string,
  extras: SubmitExtras = {},
): Promise<void> {
  state.last = { meta, file };
  resultView.showBusy(file ? `Uploading ${file.name}…` : 'Fetching the file from its address…');
  targetView.setBusy(true);
  try {
    const accepted = await api.convert(meta, file ? [file] : [], extras.optionFiles);
    void resultView.track(accepted.request_id, label, extras.compareSize ? file?.size : undefined);
  } catch (error) {
    resultView.showError(toApiError(error));
  } finally {
    targetView.setBusy(false);
    void recentView.refresh();
  }
}

async function convertFile(key: string, options: Record<string, unknown>, recipe?: string): Promise<void> {
  if (!state.file) return;
  showCurl(state.file.name, key);
  const meta: ConvertMeta = { conversion: key };
  if (recipe) meta.recipe = recipe;
  if (Object.keys(options).length > 0) meta.options = options;
  const label = `${state.file.name}: ${describe(key)}${recipe ? ` (recipe ${recipe})` : ''}`;
  await submit(meta, state.file, label);
}

/** A scan has no text layer: offer the same conversion again with OCR (the `ocr` option). */
function ocrActions(request: RequestState): NoticeAction[] {
  if (request.error?.code !== 'NEEDS_OCR') return [];
  const last = state.last;
  // Only the conversion just submitted from this page can be sent again.
  if (!last || (request.conversion && last.meta.conversion && last.meta.conversion !== request.conversion))
    return [];
  const label = describe(request.conversion ?? last.meta.conversion ?? '');
  return [
    {
      label: 'Read the text with OCR',
      run: () => {
        const meta: ConvertMeta = { ...last.meta, options: { ...last.meta.options, ocr: true } };
        void submit(meta, last.file, `${last.file?.name ?? 'URL'}: ${label} with OCR`);
      },
    },
  ];
}

function wireDropZone(): void {
  const zone = byId('dropzone');
  const input = byId<HTMLInputElement>('file-input');
  byId('choose-file').addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    chooseFiles(Array.from(input.files ?? []));
    input.value = '';
  });
  zone.addEventListener('dragenter', (event) => {
    event.preventDefault();
    zone.dataset.state = 'over';
  });
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
    zone.dataset.state = 'over';
  });
  zone.addEventListener('dragleave', () => {
    zone.dataset.state = 'idle';
  });
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.dataset.state = 'idle';
    chooseFiles(Array.from(event.dataTransfer?.files ?? []));
  });
  // A file dropped beside the zone must not make the browser navigate away from the page.
  for (const type of ['dragover', 'drop']) window.addEventListener(type, (event) => event.preventDefault());
}

function wireUrlForm(): void {
  const form = byId<HTMLFormElement>('url-form');
  const urlInput = byId<HTMLInputElement>('source-url');
  const target = byId<HTMLSelectElement>('url-target');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const sourceUrl = urlInput.value.trim();
    if (!target.value) {
      clear(byId('result-panel'));
      byId('result-panel').append(
        warningNotice('Choose a target format', 'Pick what the file should become, then convert.'),
      );
      target.focus();
      return;
    }
    void submit({ source_url: sourceUrl, to: target.value }, undefined, `${sourceUrl} → ${target.value}`);
  });
}

function fillUrlTargets(): void {
  const target = byId<HTMLSelectElement>('url-target');
  for (const format of state.catalog.targets())
    target.append(h('option', { attrs: { value: format }, text: format }));
}

function wireApiKey(): void {
  const form = byId<HTMLFormElement>('key-form');
  const input = byId<HTMLInputElement>('api-key');
  const status = byId('key-status');
  const describeKey = () => {
    const key = credentials.apiKey();
    status.textContent = key
      ? `A key ending in …${key.slice(-4)} is saved in this browser and sent with every call.`
      : 'No key saved: calls use the free anonymous quota.';
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    credentials.setApiKey(input.value);
    input.value = '';
    describeKey();
  });
  byId('clear-key').addEventListener('click', () => {
    credentials.setApiKey(null);
    describeKey();
  });
  describeKey();
}

async function start(): Promise<void> {
  showCurl();
  wireDropZone();
  wireUrlForm();
  wireApiKey();
  void recentView.refresh();
  void recipesView.refresh();
  try {
    state.catalog = await Catalog.load();
    fillUrlTargets();
    document.body.dataset.ready = 'true';
    if (state.file && state.source) showSourceTools(state.source);
  } catch (error) {
    const panel = byId('target-panel');
    clear(panel);
    panel.append(errorNotice(error instanceof ApiError ? error : toApiError(error)));
    document.body.dataset.ready = 'error';
  }
}

void start();
