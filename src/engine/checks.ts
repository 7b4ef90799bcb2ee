/**
 * What an artifact kept, as stored with it and returned by the API (`checks`). Pure data and a
 * pure describer, so the web page bundles it as is.
 */
/**
 * What one file shows, counted cheaply from the file itself. A field is absent when it does not
 * apply to the format or could not be read.
 */
export interface FileCounts {
  pages?: number;
  images?: number;
  sheets?: number;
  /** Rows of the first sheet (a CSV has one sheet). */
  rows?: number;
  width?: number;
  height?: number;
  duration_s?: number;
  /** Frames of an animation or a video. */
  frames?: number;
}

export interface ArtifactChecks extends FileCounts {
  /** Recall of the source's words in this output, 0 to 1. */
  words_kept?: number;
  words?: number;
  /**
   * Distinct pictures of the source, where the target can hold them and the source has some: an
   * output with fewer `images` lost pictures.
   */
  source_images?: number;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One line a person reads next to a download: "2 pages, 1 picture, 99% of the words". */
export function describeChecks(c: ArtifactChecks): string {
  const parts: string[] = [];
  if (c.pages !== undefined) parts.push(plural(c.pages, 'page'));
  if (c.sheets !== undefined) parts.push(plural(c.sheets, 'sheet'));
  if (c.rows !== undefined) parts.push(plural(c.rows, 'row'));
  if (c.images !== undefined)
    parts.push(
      c.source_images !== undefined && c.images < c.source_images
        ? `${c.images} of ${plural(c.source_images, 'picture')}`
        : plural(c.images, 'picture'),
    );
  if (c.width !== undefined && c.height !== undefined) parts.push(`${c.width} × ${c.height} px`);
  if (c.frames !== undefined) parts.push(plural(c.frames, 'frame'));
  if (c.duration_s !== undefined) parts.push(`${c.duration_s.toFixed(1)} s`);
  if (c.words_kept !== undefined) parts.push(`${Math.floor(c.words_kept * 100)}% of the words`);
  else if (c.words !== undefined) parts.push(plural(c.words, 'word'));
  return parts.join(', ');
}
