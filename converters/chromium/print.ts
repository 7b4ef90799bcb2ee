import type { Page } from 'playwright-core';
import type { BrowserOptions } from './options.js';

type PdfOptions = NonNullable<Parameters<Page['pdf']>[0]>;

/** What Chrome's own print dialog uses when a page sets no margins of its own. */
export const DEFAULT_MARGIN = '10mm';

const PAPER_NAMES: Record<string, string> = {
  a3: 'A3',
  a4: 'A4',
  a5: 'A5',
  letter: 'Letter',
  legal: 'Legal',
  tabloid: 'Tabloid',
};

function paper(value: string | undefined): Pick<PdfOptions, 'format' | 'width' | 'height'> {
  if (!value) return { format: 'A4' };
  const named = PAPER_NAMES[value.toLowerCase()];
  if (named) return { format: named };
  // WxH then the unit: `210x297mm`.
  const unit = value.slice(-2).toLowerCase();
  const [width, height] = value.slice(0, -2).split(/x/i);
  return { width: `${width}${unit}`, height: `${height}${unit}` };
}

/** CSS shorthand: one to four lengths, top right bottom left. */
function margins(value: string): NonNullable<PdfOptions['margin']> {
  const [top, right = top, bottom = top, left = right] = value.split(' ');
  return { top, right, bottom, left };
}

/** Playwright's PDF options from validated conversion options. */
export function pdfOptions(options: BrowserOptions): PdfOptions {
  const header = options.header_template;
  const footer = options.footer_template;
  const headed = header !== undefined || footer !== undefined;
  return {
    ...paper(options.paper),
    landscape: options.landscape === true,
    margin: margins(options.margin ?? DEFAULT_MARGIN),
    scale: options.scale ?? 1,
    printBackground: options.print_background ?? true,
    pageRanges: options.pages ?? '',
    preferCSSPageSize: options.prefer_css_page_size ?? false,
    displayHeaderFooter: headed,
    // An empty span, or Chromium prints its own title and URL in the half left out.
    headerTemplate: headed ? (header ?? '<span></span>') : undefined,
    footerTemplate: headed ? (footer ?? '<span></span>') : undefined,
    outline: true,
    tagged: true,
  };
}
