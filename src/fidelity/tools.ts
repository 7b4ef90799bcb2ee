/**
 * Runs one measuring tool (pdftotext, ffprobe...) and gives its stdout, or undefined when the tool
 * is missing or fails (the measure is then unknown). The runner owns processes and their sandbox
 * (src/run/measure-tools.ts); fidelity only reads what the tools print.
 */
export type RunTool = (tool: string, args: string[]) => Promise<string | undefined>;
