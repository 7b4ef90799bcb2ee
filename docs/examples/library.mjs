// The library API in one script: detect, convert, list the catalog, and run the HTTP API
// embedded (createApp) and listening (createServer).
// Run from a project that depends on fileconv:  node library.mjs report.docx converted/
import { catalog, convert, createApp, createServer, detect } from 'fileconv';

const [input = 'report.docx', outDir = 'converted/'] = process.argv.slice(2);

const report = await detect(input);
console.log(`detect: ${input} is ${report.detected} (named as ${report.declared}, match: ${report.match})`);

const result = await convert(input, {
  to: 'pdf',
  output: outDir,
  onProgress: (p) => process.stderr.write(`\r${p.stage} ${p.percent}%`),
});
process.stderr.write('\n');
console.log(`convert: ${result.key} -> ${result.outputs.join(', ')}`);

const pairs = await catalog();
console.log(
  `catalog: ${pairs.length} conversions, ${pairs.filter((p) => p.from === report.detected).length} from ${report.detected}`,
);

// The HTTP API as a fetch handler: mount `api.fetch` in any fetch-style server.
const api = await createApp({ dataDir: 'fileconv-data' });
const health = await api.fetch(new Request('http://localhost/healthz'));
console.log(`createApp: GET /healthz answered ${health.status}`);
await api.close();

// Or let fileconv listen by itself.
const server = await createServer({ dataDir: 'fileconv-data', port: 0 });
const ready = await fetch(`${server.url}/readyz`);
console.log(`createServer: ${server.url}/readyz answered ${ready.status}`);
await server.close();
