/** How detection recognises the documents formats of src/formats/rows/documents.ts, in words for docs/formats.md. */
export const DETECTED_BY_DOCUMENTS: Record<string, string> = {};
