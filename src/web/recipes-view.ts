// Saved recipes: a named target and options kept by the server for this device (its owner token).
// Choosing one fills the target panel in; "Save as recipe" keeps what the panel holds.
import { type ApiError, api, type Recipe } from './api.js';
import type { Catalog } from './catalog.js';
import { clear, h } from './dom.js';
import { errorNotice } from './notice.js';
import { isSecretOption } from './option-fields.js';
import { describeOptions, refusalNotice } from './recipe-notice.js';
import { toApiError } from './result-view.js';
import type { TargetView } from './target-view.js';

/** The name rule of src/core/recipes.ts, so a bad name is caught before the round trip. */
const RECIPE_NAME = '[a-z0-9][a-z0-9_\\-]{0,63}';

/** Whether a recipe can run on a file of this source format here. */
function fits(recipe: Recipe, source: string, catalog: Catalog): boolean {
  if (recipe.from && !recipe.from.includes(source)) return false;
  return !recipe.merge && catalog.targetsOf(source).includes(recipe.to);
}

export class RecipesView {
  private recipes: Recipe[] = [];
  private source = '';
  private catalog: Catalog | null = null;
  private readonly select = h('select', {
    attrs: { id: 'recipe-select', 'aria-describedby': 'recipe-about' },
  });
  private readonly about = h('p', { class: 'hint', attrs: { id: 'recipe-about', 'aria-live': 'polite' } });
  private readonly list = h('ul', { class: 'recipes', attrs: { 'aria-label': 'Your recipes' } });
  private readonly status = h('div', { class: 'recipe-status', attrs: { 'aria-live': 'polite' } });
  private readonly nameInput = h('input', {
    attrs: {
      id: 'recipe-name',
      type: 'text',
      required: '',
      pattern: RECIPE_NAME,
      maxlength: '64',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: 'e.g. scan-to-archive',
      'aria-describedby': 'recipe-name-hint',
    },
  });
  private readonly descriptionInput = h('input', {
    attrs: { id: 'recipe-description', type: 'text', maxlength: '500', autocomplete: 'off' },
  });

  constructor(
    private readonly choiceRoot: HTMLElement,
    private readonly manageRoot: HTMLElement,
    private readonly targets: TargetView,
  ) {
    this.select.addEventListener('change', () => this.choose(this.select.value));
    choiceRoot.append(
      h(
        'div',
        { class: 'recipe-row' },
        h('label', { attrs: { for: 'recipe-select' }, text: 'Recipe' }),
        this.select,
      ),
      this.about,
    );
    manageRoot.append(
      this.saveForm(),
      this.status,
      h('h3', { class: 'meta', text: 'Your recipes' }),
      this.list,
    );
    this.render();
  }

  /** Shows the recipes for a file of this format; an empty source (no file yet) hides them. */
  show(source: string, catalog: Catalog): void {
    this.source = source;
    this.catalog = catalog;
    this.choiceRoot.hidden = source === '';
    this.manageRoot.hidden = source === '';
    // The target panel was drawn afresh for this file, without a recipe.
    this.clearChoice();
    clear(this.status);
    this.render();
  }

  /** The visitor chose another target: the recipe is no longer what will be sent. */
  clearChoice(): void {
    this.select.value = '';
    this.describeChoice(null);
  }

  async refresh(): Promise<void> {
    try {
      this.recipes = (await api.recipes()).recipes ?? [];
    } catch (error) {
      this.recipes = [];
      this.status.replaceChildren(errorNotice(toApiError(error)));
    }
    this.render();
  }

  private render(): void {
    const chosen = this.select.value;
    clear(this.select);
    this.select.append(h('option', { attrs: { value: '' }, text: 'No recipe' }));
    for (const recipe of this.recipes) {
      const usable = this.catalog !== null && fits(recipe, this.source, this.catalog);
      const text = `${recipe.name} → ${recipe.to}${recipe.description ? `: ${recipe.description}` : ''}`;
      const option = h('option', {
        attrs: { value: recipe.name },
        text: usable ? text : `${text} (not for ${this.source || 'this file'})`,
      });
      option.disabled = !usable;
      this.select.append(option);
    }
    // A recipe deleted or not for this file cannot stay chosen.
    const still = this.recipes.find((r) => r.name === chosen);
    if (still && this.catalog && fits(still, this.source, this.catalog)) this.select.value = chosen;
    else if (chosen) this.choose('');
    this.renderList();
  }

  private renderList(): void {
    const summary = this.manageRoot.querySelector('summary');
    if (summary) summary.textContent = `Save as recipe (${this.recipes.length} saved)`;
    clear(this.list);
    if (this.recipes.length === 0) {
      this.list.append(
        h('li', { class: 'placeholder', text: 'None yet: save the target and options below.' }),
      );
      return;
    }
    for (const recipe of this.recipes) {
      const remove = h('button', {
        class: 'small',
        attrs: { type: 'button', 'aria-label': `Delete recipe ${recipe.name}` },
        text: 'Delete',
      });
      remove.addEventListener('click', () => void this.remove(recipe.name));
      this.list.append(
        h(
          'li',
          { attrs: { 'data-recipe': recipe.name } },
          h('strong', { text: recipe.name }),
          h('span', { class: 'badge', text: `→ ${recipe.to}` }),
          recipe.description ? h('span', { text: recipe.description }) : null,
          h('span', { class: 'meta', text: describeOptions(recipe.options) || 'no options' }),
          remove,
        ),
      );
    }
  }

  private choose(name: string): void {
    const recipe = this.recipes.find((r) => r.name === name) ?? null;
    const applied = this.targets.applyRecipe(
      recipe ? { name: recipe.name, to: recipe.to, options: recipe.options ?? {} } : null,
    );
    this.select.value = recipe && applied ? recipe.name : '';
    this.describeChoice(recipe && applied ? recipe : null);
  }

  private describeChoice(recipe: Recipe | null): void {
    this.about.textContent = recipe
      ? `Converts to ${recipe.to}${recipe.options && Object.keys(recipe.options).length > 0 ? ` with ${describeOptions(recipe.options)}` : ''}. ` +
        'Its options are filled in below: what you change or add (a password) is sent with it. ' +
        'To drop one of its options, choose No recipe.'
      : '';
  }

  private saveForm(): HTMLElement {
    const form = h(
      'form',
      { class: 'recipe-form', attrs: { id: 'recipe-form', novalidate: '' } },
      h(
        'div',
        { class: 'option-field' },
        h('label', { attrs: { for: 'recipe-name' }, text: 'Recipe name' }),
        this.nameInput,
        h('p', {
          class: 'hint',
          attrs: { id: 'recipe-name-hint' },
          text: 'Lower-case letters, digits, - or _. Saving under a name you used replaces that recipe.',
        }),
      ),
      h(
        'div',
        { class: 'option-field' },
        h('label', { attrs: { for: 'recipe-description' }, text: 'Description (optional)' }),
        this.descriptionInput,
      ),
      h(
        'div',
        { class: 'recipe-save' },
        h(
          'button',
          { attrs: { type: 'submit', id: 'save-recipe', 'aria-describedby': 'recipe-secret-hint' } },
          'Save as recipe',
        ),
        h('p', {
          class: 'hint',
          attrs: { id: 'recipe-secret-hint' },
          text: 'Saves the chosen target and the options filled in above. Passwords (and a picture to stamp) are never saved: give them with each conversion.',
        }),
      ),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.save();
    });
    return form;
  }

  private say(text: string): void {
    this.status.replaceChildren(h('p', { class: 'meta', attrs: { role: 'status' }, text }));
  }

  private async save(): Promise<void> {
    const current = this.targets.current();
    const name = this.nameInput.value.trim();
    if (!current) return this.say('Choose a target format first.');
    if (!new RegExp(`^${RECIPE_NAME}$`).test(name)) {
      this.nameInput.setAttribute('aria-invalid', 'true');
      this.nameInput.focus();
      return this.say('Give the recipe a name: lower-case letters, digits, - or _, like scan-to-archive.');
    }
    this.nameInput.removeAttribute('aria-invalid');
    // A recipe is kept on the server: no password, and no picture (a file is not JSON).
    const options = Object.fromEntries(
      Object.entries(current.options).filter(
        ([option, value]) => !isSecretOption(option) && !(value instanceof File),
      ),
    );
    const description = this.descriptionInput.value.trim();
    const replacing = this.recipes.some((r) => r.name === name);
    try {
      const { recipe } = await api.saveRecipe({
        name,
        ...(description ? { description } : {}),
        to: current.to,
        ...(Object.keys(options).length > 0 ? { options } : {}),
      });
      this.say(`${replacing ? 'Replaced' : 'Saved'} the recipe ${recipe?.name ?? name}.`);
      this.nameInput.value = '';
      this.descriptionInput.value = '';
    } catch (error) {
      this.refused(toApiError(error));
    }
    await this.refresh();
  }

  /** The server's refusal in its own words, and the field it names marked and shown. */
  private refused(error: ApiError): void {
    if (error.body.code !== 'INVALID_REQUEST') {
      this.status.replaceChildren(errorNotice(error));
      return;
    }
    const { option, field: named } = error.body;
    const field = option
      ? document.getElementById(`opt-${option}`)
      : named === 'name'
        ? this.nameInput
        : named === 'description'
          ? this.descriptionInput
          : null;
    this.status.replaceChildren(refusalNotice(error));
    if (!field) return;
    const folded = field.closest('details');
    if (folded) folded.open = true;
    field.setAttribute('aria-invalid', 'true');
    field.addEventListener('input', () => field.removeAttribute('aria-invalid'), { once: true });
  }

  private async remove(name: string): Promise<void> {
    const index = this.recipes.findIndex((r) => r.name === name);
    try {
      await api.deleteRecipe(name);
      this.say(`Deleted the recipe ${name}.`);
    } catch (error) {
      this.status.replaceChildren(errorNotice(toApiError(error)));
    }
    await this.refresh();
    // The pressed button is gone: the keyboard goes on from the next recipe, not from the page's top.
    const buttons = this.list.querySelectorAll<HTMLButtonElement>('button');
    (buttons[Math.min(index, buttons.length - 1)] ?? this.nameInput).focus();
  }
}
