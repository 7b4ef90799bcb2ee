import type { Conversion } from './api.js';
import type { Catalog } from './catalog.js';
import { clear, h } from './dom.js';
import { type OptionForm, optionForm } from './option-fields.js';

const FAMILY_LABELS: Record<string, string> = {
  ocr: 'Text recognition (OCR)',
  voice: 'Speech',
  report: "Report: the file's pages, metadata and signatures, checked",
};

export interface TargetViewHooks {
  /** With a recipe, `options` holds only what the visitor changed or added to the recipe's. */
  convert(conversionKey: string, options: Record<string, unknown>, recipe?: string): void;
  /** The visitor chose another target while a recipe was chosen: the recipe no longer applies. */
  recipeLeft(): void;
}

/** A recipe as the target panel uses it: its target and the options it fills in. */
export interface RecipeChoice {
  name: string;
  to: string;
  options: Record<string, unknown>;
}

/** The chosen target and the options filled in, for saving them as a recipe. */
export interface CurrentChoice {
  key: string;
  to: string;
  options: Record<string, unknown>;
}

/**
 * Options about the printed page, shown open when the chosen conversion declares them; every other
 * option it declares waits behind "More options". Only the grouping is fixed here: which options
 * there are, and their fields, come from the server.
 */
export const PAGE_OPTIONS: readonly string[] = [
  'paper',
  'landscape',
  'margin',
  'scale',
  'single_page_sheets',
  'fit_width',
  'print_background',
];

/**
 * The targets most people ask for, in the order they are offered. Those a source has come first;
 * the rest wait behind "More formats", so a png does not open on a wall of forty choices.
 */
export const USUAL_TARGETS: readonly string[] = [
  'pdf',
  'docx',
  'png',
  'jpg',
  'mp3',
  'mp4',
  'csv',
  'json',
  'txt',
  'xlsx',
  'webp',
  'gif',
  'wav',
  'html',
  'md',
];

/** The target formats for one source: the usual ones first, the rest by family behind "more". */
export class TargetView {
  private options: OptionForm | null = null;
  private form: HTMLFormElement | null = null;
  private optionsBox: HTMLElement | null = null;
  private catalog: Catalog | null = null;
  private recipe: RecipeChoice | null = null;

  constructor(
    private readonly root: HTMLElement,
    private readonly hooks: TargetViewHooks,
  ) {}

  reset(message: string): void {
    this.form = null;
    this.recipe = null;
    clear(this.root);
    this.root.append(h('p', { class: 'placeholder', text: message }));
  }

  private option(conversion: Conversion, catalog: Catalog): HTMLElement {
    const radio = h('input', {
      attrs: { type: 'radio', name: 'conversion', value: conversion.key, 'data-to': conversion.to },
    });
    const lossy = catalog.isLossy(conversion.key);
    const title = [
      FAMILY_LABELS[conversion.family],
      lossy ? 'Lossy: some quality or detail is lost' : 'Lossless',
    ].filter(Boolean);
    return h(
      'label',
      { class: 'target', attrs: { title: title.join('. ') } },
      radio,
      conversion.to,
      lossy && h('span', { class: 'badge lossy', text: 'lossy' }),
    );
  }

  private familyFieldset(family: string, conversions: Conversion[], catalog: Catalog): HTMLElement {
    return h(
      'fieldset',
      { class: 'family', attrs: { 'data-family': family } },
      h('legend', { text: FAMILY_LABELS[family] ?? family }),
      h('div', { class: 'targets' }, ...conversions.map((c) => this.option(c, catalog))),
    );
  }

  show(source: string, catalog: Catalog): void {
    clear(this.root);
    this.form = null;
    this.recipe = null;
    this.catalog = catalog;
    const groups = catalog.byFamily(source);
    if (groups.size === 0) {
      this.reset(`There is no conversion from ${source} on this server.`);
      return;
    }
    const all = [...groups.values()].flat();
    const rank = (c: Conversion) => USUAL_TARGETS.indexOf(c.to);
    // what keeps the content's kind (png to jpg) before what reads it (png to txt through OCR)
    const special = (c: Conversion) => Number(c.family in FAMILY_LABELS);
    // A conversion into the same format is an operation (compress, pages): not a usual target.
    const usual = all
      .filter((c) => rank(c) >= 0 && c.to !== source)
      .sort((a, b) => special(a) - special(b) || rank(a) - rank(b));
    const form = h('form', { attrs: { id: 'target-form' } });
    if (usual.length === 0) {
      for (const [family, conversions] of groups)
        form.append(this.familyFieldset(family, conversions, catalog));
    } else {
      form.append(
        h(
          'fieldset',
          { class: 'family usual', attrs: { 'data-family': 'usual' } },
          h('legend', { text: 'Common formats' }),
          h('div', { class: 'targets' }, ...usual.map((c) => this.option(c, catalog))),
        ),
      );
      const rest = all.length - usual.length;
      if (rest > 0) {
        const more = h(
          'details',
          { class: 'more-targets', attrs: { id: 'more-targets' } },
          h('summary', { text: `More formats (${rest})` }),
        );
        for (const [family, conversions] of groups) {
          // Into its own format (pdf to pdf: a recipe's operations) is not usual, so it waits here.
          const others = conversions.filter((c) => rank(c) < 0 || c.to === source);
          if (others.length > 0) more.append(this.familyFieldset(family, others, catalog));
        }
        form.append(more);
      }
    }
    const first = form.querySelector<HTMLInputElement>('input[name="conversion"]');
    if (first) first.checked = true;
    const optionsBox = h('div', { class: 'conversion-options', attrs: { id: 'conversion-options' } });
    form.append(optionsBox);
    this.form = form;
    this.optionsBox = optionsBox;
    form.addEventListener('change', (event) => {
      if ((event.target as HTMLElement).getAttribute('name') !== 'conversion') return;
      if (this.recipe) {
        this.recipe = null;
        this.hooks.recipeLeft();
      }
      this.renderOptions();
    });
    this.renderOptions();
    const button = h('button', {
      class: 'primary',
      attrs: { type: 'submit', id: 'convert-button' },
      text: 'Convert',
    });
    form.append(h('div', { class: 'convert-row' }, button));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const chosen = this.chosen();
      if (!chosen) return;
      const values = this.options?.read() ?? {};
      if (this.recipe)
        this.hooks.convert(chosen.value, changedOptions(values, this.recipe.options), this.recipe.name);
      else this.hooks.convert(chosen.value, values);
    });
    this.root.append(form);
  }

  private chosen(): HTMLInputElement | null {
    return this.form?.querySelector<HTMLInputElement>('input[name="conversion"]:checked') ?? null;
  }

  /**
   * Chooses a recipe's target and fills its options in, so the visitor sees what will happen;
   * null goes back to empty fields. False when this file cannot become the recipe's target.
   */
  applyRecipe(recipe: RecipeChoice | null): boolean {
    if (!this.form) return false;
    if (recipe) {
      const radio = Array.from(this.form.querySelectorAll<HTMLInputElement>('input[name="conversion"]')).find(
        (r) => r.dataset.to === recipe.to,
      );
      if (!radio) return false;
      radio.checked = true;
      const more = radio.closest('details');
      if (more) more.open = true;
    }
    this.recipe = recipe;
    this.renderOptions();
    return true;
  }

  /** The chosen target and what its fields hold: what "Save as recipe" keeps. */
  current(): CurrentChoice | null {
    const chosen = this.chosen();
    if (!chosen) return null;
    return { key: chosen.value, to: chosen.dataset.to ?? '', options: this.options?.read() ?? {} };
  }

  private renderOptions(): void {
    if (this.optionsBox && this.catalog)
      this.showOptions(this.optionsBox, this.chosen()?.value ?? '', this.catalog);
  }

  /** The chosen conversion's declared options: page layout open, the rest folded away. */
  private showOptions(box: HTMLElement, key: string, catalog: Catalog): void {
    clear(box);
    const initial = this.recipe?.options ?? {};
    // A recipe's option the catalog does not list for this key still shows, so nothing is hidden.
    const names = [...new Set([...catalog.optionsOf(key), ...Object.keys(initial)])];
    const page = names
      .filter((n) => PAGE_OPTIONS.includes(n))
      .sort((a, b) => PAGE_OPTIONS.indexOf(a) - PAGE_OPTIONS.indexOf(b));
    const rest = names.filter((n) => !PAGE_OPTIONS.includes(n));
    this.options = optionForm([...page, ...rest], catalog, 'opt', initial);
    const fields = this.options.fields;
    if (page.length > 0) {
      box.append(
        h(
          'fieldset',
          { class: 'options page-options', attrs: { 'data-options': 'page' } },
          h('legend', { text: 'Page' }),
          h('div', { class: 'option-grid' }, ...fields.slice(0, page.length)),
        ),
      );
    }
    if (rest.length > 0) {
      const more = h(
        'details',
        { class: 'more-options', attrs: { 'data-options': 'more' } },
        h('summary', { class: 'options-summary', text: `More options (${rest.length})` }),
        h('div', { class: 'option-grid' }, ...fields.slice(page.length)),
      );
      // What a recipe sets must be seen, not folded away.
      more.open = rest.some((name) => name in initial);
      box.append(more);
    }
  }

  setBusy(busy: boolean): void {
    const button = this.root.querySelector<HTMLButtonElement>('#convert-button');
    if (button) button.disabled = busy;
  }
}

function sameValue(given: unknown, kept: unknown): boolean {
  // An object option (boxes) is shown, and so read back, as its JSON text.
  if (typeof given === 'string' && kept !== null && typeof kept === 'object')
    return given === JSON.stringify(kept);
  return JSON.stringify(given) === JSON.stringify(kept);
}

/** What the fields hold that the recipe does not already say: what is sent beside its name. */
export function changedOptions(
  values: Record<string, unknown>,
  recipe: Record<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).filter(([name, value]) => !sameValue(value, recipe[name])),
  );
}
