/** How detection recognises the binary formats of src/formats/rows/binary.ts, in words for docs/formats.md. */
export const DETECTED_BY_BINARY: Record<string, string> = {};
