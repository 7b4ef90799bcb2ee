// The tools for a chosen PDF. Each is the conversion pdf-pdf with a few options; which tools show,
// and the fields each has, follow the options the server declares for pdf-pdf and their schemas.
import type { Catalog } from './catalog.js';
import { clear, h } from './dom.js';
import { optionForm } from './option-fields.js';
import { PAGE_TOOLS } from './pdf-page-tools.js';

export interface PdfTool {
  id: string;
  title: string;
  blurb: string;
  /** The options the visitor fills in, when the server declares them. */
  fields: readonly string[];
  /** Options that must be given; without the server declaring them the tool is not offered. */
  required: readonly string[];
  /** Options the tool sets itself (OCR's `ocr: true`). */
  fixed?: Record<string, unknown>;
  initial?: Record<string, unknown>;
  button: string;
  /** The result is compared with the input's size. */
  compareSize?: boolean;
}

export const PDF_TOOLS: readonly PdfTool[] = [
  {
    id: 'split',
    title: 'Split',
    blurb: 'Cut it into parts of so many pages: one PDF per part, and a ZIP of them all.',
    fields: ['split'],
    required: ['split'],
    initial: { split: 1 },
    button: 'Split',
  },
  {
    id: 'extract',
    title: 'Extract pages',
    blurb: 'Keep only these pages, in this order, like 1-3,5 or 8-.',
    fields: ['pages'],
    required: ['pages'],
    button: 'Extract',
  },
  {
    id: 'rotate',
    title: 'Rotate',
    blurb: 'Turn every page clockwise.',
    fields: ['rotate'],
    required: ['rotate'],
    initial: { rotate: 90 },
    button: 'Rotate',
  },
  {
    id: 'compress',
    title: 'Compress',
    blurb:
      'Make it smaller. Lossless keeps every picture; the presets resample pictures (printer 300, ebook 150, screen 72 dpi).',
    fields: ['compress'],
    required: ['compress'],
    initial: { compress: 'ebook' },
    button: 'Compress',
    compareSize: true,
  },
  {
    id: 'ocr',
    title: 'Make searchable (OCR)',
    blurb: 'Read the text of scanned pages and lay it under the pictures, so it can be searched and copied.',
    fields: ['lang', 'deskew'],
    required: [],
    fixed: { ocr: true },
    initial: { lang: 'eng' },
    button: 'Make searchable',
  },
  {
    id: 'protect',
    title: 'Protect with a password',
    blurb: 'Encrypt it (AES-256): the user password opens it, the owner password lifts the restrictions.',
    fields: ['user_password', 'owner_password', 'allow_print', 'allow_copy', 'allow_modify'],
    required: ['user_password'],
    button: 'Protect',
  },
  {
    id: 'stamp-picture',
    title: 'Stamp a picture',
    blurb: 'Lay a logo, a signature or a seal (PNG, JPEG or SVG, at most 1 MB) on every page.',
    fields: ['stamp_image', 'stamp_image_position', 'stamp_image_width', 'stamp_image_opacity'],
    required: ['stamp_image'],
    initial: { stamp_image_position: 'bottom-right' },
    button: 'Stamp',
  },
  {
    id: 'sign',
    title: 'Sign',
    blurb:
      'Sign it with your certificate (a .p12 or .pfx file and its password): readers show who signed and whether it changed since. Signing is the last step: a signed file is not encrypted here.',
    fields: [
      'sign_certificate',
      'sign_password',
      'sign_reason',
      'sign_location',
      'sign_page',
      'sign_position',
    ],
    required: ['sign_certificate'],
    button: 'Sign',
  },
  {
    id: 'watermark',
    title: 'Watermark',
    blurb: 'Draw a line of text across every page, like DRAFT or CONFIDENTIAL.',
    fields: ['watermark', 'watermark_opacity', 'watermark_angle', 'watermark_color', 'watermark_size'],
    required: ['watermark'],
    initial: { watermark: 'DRAFT' },
    button: 'Add the watermark',
  },
  {
    id: 'rubber-stamp',
    title: 'Rubber stamp',
    blurb: 'Put a stamp like APPROVED or PAID at the top right of every page.',
    fields: ['stamp'],
    required: ['stamp'],
    initial: { stamp: 'approved' },
    button: 'Stamp',
  },
  {
    id: 'page-numbers',
    title: 'Page numbers',
    blurb: 'Number the pages; {n} is the number and {total} the last one, like "Page {n} of {total}".',
    fields: ['page_numbers_position', 'page_numbers_format', 'page_numbers_start'],
    required: [],
    fixed: { page_numbers: true },
    button: 'Number the pages',
  },
  {
    id: 'metadata',
    title: 'Title and author',
    blurb: 'Set the document information readers show, or strip all of it.',
    fields: ['title', 'author', 'subject', 'keywords', 'strip_metadata'],
    required: [],
    button: 'Save',
  },
  {
    id: 'flatten',
    title: 'Flatten forms',
    blurb: 'Draw form fields and annotations into the pages, so they can no longer be changed.',
    fields: [],
    required: [],
    fixed: { flatten: true },
    button: 'Flatten',
  },
  {
    id: 'linearize',
    title: 'Fast web view',
    blurb: 'Arrange it so a browser shows the first page while the rest downloads.',
    fields: [],
    required: [],
    fixed: { linearize: true },
    button: 'Optimise',
  },
  {
    id: 'pdfa',
    title: 'Archive (PDF/A-2b)',
    blurb: 'Make an archival copy: fonts embedded, colours defined, checked before it is returned.',
    fields: ['title', 'author'],
    required: [],
    fixed: { pdfa: '2b' },
    button: 'Make PDF/A',
  },
  {
    id: 'unlock',
    title: 'Unlock',
    blurb: 'Remove the password of a protected PDF: you need to know it.',
    fields: ['password'],
    required: ['password'],
    button: 'Unlock',
  },
  ...PAGE_TOOLS,
];

export interface PdfToolsHooks {
  run(tool: PdfTool, options: Record<string, unknown>): void;
}

/** The PDF's tools as disclosures, each a small form sending pdf-pdf with its options. */
export class PdfToolsView {
  constructor(
    private readonly root: HTMLElement,
    private readonly hooks: PdfToolsHooks,
  ) {}

  hide(): void {
    clear(this.root);
    this.root.hidden = true;
  }

  show(catalog: Catalog): void {
    clear(this.root);
    const declared = new Set(catalog.optionsOf('pdf-pdf'));
    const tools = PDF_TOOLS.filter((tool) =>
      [...tool.required, ...Object.keys(tool.fixed ?? {})].every((name) => declared.has(name)),
    );
    this.root.hidden = tools.length === 0;
    for (const tool of tools) this.root.append(this.toolForm(tool, declared, catalog));
  }

  private toolForm(tool: PdfTool, declared: Set<string>, catalog: Catalog): HTMLElement {
    const names = tool.fields.filter((name) => declared.has(name));
    const fields = optionForm(names, catalog, `tool-${tool.id}`, tool.initial);
    for (const name of tool.required) {
      const input = fields.fields
        .find((f) => f.dataset.option === name)
        ?.querySelector<HTMLInputElement | HTMLSelectElement>('input, select');
      input?.setAttribute('required', '');
    }
    const form = h(
      'form',
      { class: 'tool-form', attrs: { 'data-tool': tool.id, autocomplete: 'off' } },
      h('p', { class: 'hint', text: tool.blurb }),
      h('div', { class: 'option-grid' }, ...fields.fields),
      h('button', { class: 'primary', attrs: { type: 'submit' }, text: tool.button }),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.hooks.run(tool, { ...fields.read(), ...tool.fixed });
      // A password is sent once and forgotten: it is not left in the form for the next visitor.
      for (const secret of Array.from(form.querySelectorAll<HTMLInputElement>('input[type="password"]')))
        secret.value = '';
    });
    return h(
      'details',
      { class: 'tool', attrs: { id: `tool-${tool.id}` } },
      h('summary', { class: 'tool-summary', text: tool.title }),
      form,
    );
  }
}
