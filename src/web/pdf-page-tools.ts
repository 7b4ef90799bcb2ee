// The page tools of a chosen PDF (redaction, cropping, layout, blank pages, greyscale): entries of
// the PDF tools list (pdf-tools.ts), shown when the server declares their options for pdf-pdf.

export const PAGE_TOOLS = [
  {
    id: 'redact',
    title: 'Redact',
    blurb:
      'Remove words for good: every occurrence (any case, several separated by |), what an expression matches, or what lies in boxes (page:x0,y0,x1,y1 in points from the bottom left). The text and pictures under them are gone from the file, and black boxes show where.',
    fields: ['redact_text', 'redact_regex', 'redact_boxes'],
    required: ['redact_text'],
    button: 'Redact',
  },
  {
    id: 'crop',
    title: 'Crop',
    blurb:
      'Crop every page to what it shows (content), or to a box x0,y0,x1,y1 in points from the bottom left.',
    fields: ['crop'],
    required: ['crop'],
    initial: { crop: 'content' },
    button: 'Crop',
  },
  {
    id: 'rotate-pages',
    title: 'Rotate some pages',
    blurb: 'Turn chosen pages clockwise: 90:1-3,180:5 turns pages 1 to 3 a quarter and page 5 upside down.',
    fields: ['rotate_pages'],
    required: ['rotate_pages'],
    button: 'Rotate',
  },
  {
    id: 'pages-per-sheet',
    title: 'Pages per sheet',
    blurb: 'Lay 2, 4, 6 or 9 pages on each sheet, in reading order.',
    fields: ['pages_per_sheet'],
    required: ['pages_per_sheet'],
    initial: { pages_per_sheet: 4 },
    button: 'Lay out',
  },
  {
    id: 'booklet',
    title: 'Booklet',
    blurb: 'Two pages a side in folding order: print on both sides, fold the stack in the middle.',
    fields: [],
    required: [],
    fixed: { booklet: true },
    button: 'Make a booklet',
  },
  {
    id: 'remove-blank',
    title: 'Remove blank pages',
    blurb:
      'Drop pages with no ink. For scans, a threshold (like 0.0005) lets a page with dust on up to that share of it count as blank; a line of text is about 0.001 of a page.',
    fields: ['blank_threshold'],
    required: [],
    fixed: { remove_blank_pages: true },
    button: 'Remove blank pages',
  },
  {
    id: 'greyscale',
    title: 'Greyscale',
    blurb: 'Turn every colour, of text, drawings and pictures, to grey.',
    fields: [],
    required: [],
    fixed: { greyscale: true },
    button: 'Make it grey',
  },
] as const;
