import { bool, defineOption, int, like, num, type OptionValues, oneOf } from '../../src/engine/option-kit.js';
import { landscape, margin, pages, paper, quality } from '../../src/engine/shared-options.js';

function pageTemplate(part: 'header' | 'footer') {
  return defineOption(
    like(/^[^\0]{1,4000}$/, '<span class="pageNumber"></span>'),
    `HTML ${part} on every printed page (pageNumber, totalPages, title, date)`,
  );
}

/** How a page is printed to PDF: honoured by the browser's PDF edges. */
export const PRINT_OPTIONS = {
  pages,
  paper,
  landscape,
  margin,
  scale: defineOption(num(0.1, 2), 'zoom of a printed page'),
  print_background: defineOption(bool(), 'print background colours and images (default true)'),
  prefer_css_page_size: defineOption(bool(), "use the page's CSS @page size over paper"),
  header_template: pageTemplate('header'),
  footer_template: pageTemplate('footer'),
};

/** How a page is loaded and laid out, whatever it becomes. */
export const PAGE_OPTIONS = {
  media: defineOption(
    oneOf(['print', 'screen']),
    'CSS media type of a web page (default print for PDF, screen for images)',
  ),
  javascript: defineOption(bool(), "run the web page's scripts (default false)"),
  wait_for: defineOption(like(/^[^\0]{1,200}$/, '#ready'), 'CSS selector to wait for before printing'),
  wait_ms: defineOption(int(0, 10_000), 'delay before printing a web page, in ms'),
  viewport_width: defineOption(int(200, 3840), 'layout width of a web page in CSS px'),
};

/** What a full-page screenshot takes. */
export const IMAGE_OPTIONS = {
  quality,
  device_scale_factor: defineOption(num(1, 4), 'device pixels per CSS px of a web page image'),
};

/** Every option the browser honours; `render.ts` and `print.ts` read them typed from here. */
export const BROWSER_OPTIONS = { ...PRINT_OPTIONS, ...PAGE_OPTIONS, ...IMAGE_OPTIONS };
export type BrowserOptions = OptionValues<typeof BROWSER_OPTIONS>;

/** The option names of the browser's edges to one target. */
export function browserOptionNames(to: string): string[] {
  return Object.keys(
    to === 'pdf' ? { ...PAGE_OPTIONS, ...PRINT_OPTIONS } : { ...PAGE_OPTIONS, ...IMAGE_OPTIONS },
  );
}
