// Form fields drawn from an option's JSON Schema (the server's declaration), not from a fixed list:
// a new option an engine declares shows up on the page with its own kind of field.
import type { OptionSchema } from './api.js';
import type { Catalog } from './catalog.js';
import { h } from './dom.js';

export interface OptionForm {
  /** One labelled field per option. */
  fields: HTMLElement[];
  /** The values the visitor gave; an empty field means "the engine's default" and is left out. */
  read(): Record<string, unknown>;
}

type Reader = () => unknown;

/** "user_password" → "User password". */
export function optionLabel(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Passwords are typed unseen and never offered for saving next to a page address. */
export function isSecretOption(name: string): boolean {
  return /password/.test(name);
}

/**
 * Options whose value is a file as a data: URL, each with the files its field takes and the
 * multipart part it is sent as (the meta part holds 64 KiB): the stamp's picture and the signing
 * certificate.
 */
export const FILE_OPTIONS: Readonly<Record<string, { accept: string; part: string }>> = {
  stamp_image: { accept: '.png,.jpg,.jpeg,.svg,image/png,image/jpeg,image/svg+xml', part: 'stamp' },
  sign_certificate: { accept: '.p12,.pfx,application/x-pkcs12', part: 'certificate' },
};

/** The values an enumerated option takes: `enum`, or `anyOf` of one-value enums or consts. */
function choices(schema: OptionSchema): Array<string | number> | null {
  if (schema.enum) return schema.enum;
  const alternatives = schema.anyOf?.flatMap(
    (a) => a.enum ?? ('const' in a ? [a.const as string | number] : []),
  );
  return alternatives && alternatives.length > 0 ? alternatives : null;
}

function select(id: string, entries: Array<[string, string]>, initial: string): HTMLSelectElement {
  const node = h(
    'select',
    { attrs: { id } },
    ...entries.map(([value, text]) => h('option', { attrs: { value }, text })),
  );
  node.value = initial;
  return node;
}

function control(name: string, id: string, schema: OptionSchema, initial: unknown): [HTMLElement, Reader] {
  const given =
    initial === undefined ? '' : typeof initial === 'object' ? JSON.stringify(initial) : String(initial);
  const values = choices(schema);
  if (values) {
    const node = select(
      id,
      [['', 'Default'], ...values.map((v): [string, string] => [String(v), String(v)])],
      given,
    );
    const numeric = values.every((v) => typeof v === 'number');
    return [node, () => (node.value === '' ? undefined : numeric ? Number(node.value) : node.value)];
  }
  if (schema.type === 'boolean') {
    const node = select(
      id,
      [
        ['', 'Default'],
        ['true', 'Yes'],
        ['false', 'No'],
      ],
      given,
    );
    return [node, () => (node.value === '' ? undefined : node.value === 'true')];
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    const attrs: Record<string, string> = { id, type: 'number', inputmode: 'numeric' };
    if (schema.minimum !== undefined) attrs.min = String(schema.minimum);
    if (schema.maximum !== undefined) attrs.max = String(schema.maximum);
    attrs.step = schema.type === 'integer' ? '1' : 'any';
    const node = h('input', { attrs });
    node.value = given;
    return [node, () => (node.value.trim() === '' ? undefined : Number(node.value))];
  }
  const file = FILE_OPTIONS[name];
  if (file) {
    // Sent as its own multipart part, so the file itself is read.
    const node = h('input', { attrs: { id, type: 'file', accept: file.accept } });
    return [node, () => node.files?.[0]];
  }
  const secret = isSecretOption(name);
  const attrs: Record<string, string> = {
    id,
    type: secret ? 'password' : 'text',
    spellcheck: 'false',
    autocomplete: secret ? (name === 'password' ? 'current-password' : 'new-password') : 'off',
  };
  const example = schema.examples?.[0];
  if (!secret && typeof example === 'string') attrs.placeholder = `e.g. ${example}`;
  const node = h('input', { attrs });
  node.value = given;
  return [node, () => (node.value === '' ? undefined : node.value)];
}

/**
 * Fields for the named options, each with its label and the schema's description as its hint.
 * `initial` fills a field in (the visitor can still change it).
 */
export function optionForm(
  names: readonly string[],
  catalog: Catalog,
  idPrefix: string,
  initial: Record<string, unknown> = {},
): OptionForm {
  const readers = new Map<string, Reader>();
  const fields = names.map((name) => {
    const schema = catalog.schemaOf(name);
    const id = `${idPrefix}-${name}`;
    const [node, read] = control(name, id, schema, initial[name]);
    readers.set(name, read);
    const hintId = `${id}-hint`;
    if (schema.description) node.setAttribute('aria-describedby', hintId);
    return h(
      'div',
      { class: 'option-field', attrs: { 'data-option': name } },
      h('label', { attrs: { for: id }, text: optionLabel(name) }),
      node,
      schema.description ? h('p', { class: 'hint', attrs: { id: hintId }, text: schema.description }) : null,
    );
  });
  return {
    fields,
    read() {
      const values: Record<string, unknown> = {};
      for (const [name, read] of readers) {
        const value = read();
        if (value !== undefined) values[name] = value;
      }
      return values;
    },
  };
}
