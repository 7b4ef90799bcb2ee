/** How detection recognises the media formats of src/formats/rows/media.ts, in words for docs/formats.md. */
export const DETECTED_BY_MEDIA: Record<string, string> = {};
