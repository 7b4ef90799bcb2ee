// `fileconv detect` is the command scripts call once per file, so its start-up is its speed: it is
// built as one self-contained file (tsup.detect.config.ts) that loads without resolving a module
// in node_modules. Every other command goes through the full program. The specifier is a variable
// so the main build leaves the bundle out rather than splitting it into shared chunks; from the
// sources it resolves to detect-main.ts.
const DETECT_ENTRY = './detect-main.js';

await import(process.argv[2] === 'detect' ? DETECT_ENTRY : './program.js');
