/**
 * Runs one measuring tool (pdftotext, ffprobe...) and gives its stdout, or undefined when the tool
 * is missing or fails (the measure is then unknown). The runner owns processes and their sandbox
 * (src/run/measure-tools.ts); fidelity only reads what the tools print.
 */
export type RunTool = ((tool: string, args: string[]) => Promise<string | undefined>) & {
  /**
   * The PDF to give poppler's page readers (pdftotext, pdfimages) for `path`: a copy of its pages
   * without the document's output intent when it has one, else `path`. Poppler 22 builds a colour
   * transform from an output intent's ICC profile for every page it reads: about 15 ms a page, so
   * checking a 40-page PDF/A took 0.7 s against 10 ms for the same pages without it.
   */
  pdfForPages?: (path: string) => Promise<string>;
};

/** The file poppler's page readers should read for the PDF at `path` (RunTool.pdfForPages). */
export async function pagesOf(path: string, run: RunTool): Promise<string> {
  return (await run.pdfForPages?.(path).catch(() => path)) ?? path;
}
