import { afterAll, beforeAll } from 'vitest';
import { closeBrowserPool, warmBrowser } from '../../converters/chromium/pool.js';
import { zip } from './build.js';
import type { Canary, HostileCase } from './harness.js';

// The warm browser outlives single cases, as in a server: it starts before them (so its folders
// are not one case's leftovers) and the suite closes it, removing them, at the end.
beforeAll(async () => {
  await warmBrowser().catch(() => undefined);
});
afterAll(() => closeBrowserPool());

/** A page with the page's scripts in one inline block. */
const page = (body: string, script = '') =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>${body}<script>${script}</script></body></html>`;

/** Every way a page reaches out: subresources, frames, fetch, beacons, websockets, navigation. */
function reachOut(c: Canary): string {
  return page(
    `<p>reach out</p><img src="${c.url}img"><link rel="stylesheet" href="${c.url}css">
<iframe src="${c.url}frame"></iframe><iframe src="file://${c.files.txt}"></iframe>
<object data="file://${c.files.svg}"></object><video src="${c.url}video"></video>`,
    `fetch('${c.url}fetch').then(r => r.text()).then(t => document.body.append(t)).catch(() => {});
fetch('file://${c.files.txt}').then(r => r.text()).then(t => document.body.append(t)).catch(() => {});
navigator.sendBeacon('${c.url}beacon', 'x');
try { new WebSocket('${c.url.replace('http', 'ws')}ws'); } catch {}
new EventSource('${c.url}events');
const x = new XMLHttpRequest(); x.open('GET', '${c.url}xhr'); x.send();`,
  );
}

/** Chromium against pages that read local files, call out, loop, eat memory or print forever. */
export const webCases: HostileCase[] = [
  {
    name: 'chromium: file:///etc/passwd and secret-file iframes',
    attack: 'iframes, object and image on local files (refused: the page has its own origin only)',
    from: 'html',
    to: 'pdf',
    engine: 'chromium',
    make: (c) =>
      page(
        `<iframe src="file:///etc/passwd"></iframe><iframe src="file://${c.files.txt}"></iframe>
<img src="file://${c.files.png}"><object data="file://${c.files.svg}"></object>`,
      ),
    allowed: { output: true },
  },
  {
    name: 'chromium: requests to the canary, scripts off',
    attack: 'subresources, frames and scripts calling the canary listener, with JavaScript left off',
    from: 'html',
    to: 'png',
    engine: 'chromium',
    make: reachOut,
    allowed: { output: true },
  },
  {
    name: 'chromium: fetch, beacon, XHR and websocket to the canary, scripts on',
    attack: 'the same page with javascript=true: every request is refused by interception',
    from: 'html',
    to: 'pdf',
    engine: 'chromium',
    options: { javascript: true, wait_ms: 500 },
    make: reachOut,
    allowed: { output: true },
  },
  {
    name: 'chromium: navigation to the canary',
    attack: 'meta refresh and location change moving the page to the canary URL',
    from: 'html',
    to: 'pdf',
    engine: 'chromium',
    options: { javascript: true, wait_ms: 300 },
    make: (c) =>
      `<!DOCTYPE html><html><head><meta http-equiv="refresh" content="0;url=${c.url}refresh"></head><body>stay<script>location.href='${c.url}nav'</script></body></html>`,
    allowed: { output: true, codes: ['CONVERT_FAILED'] },
  },
  {
    name: 'chromium: stylesheets and CSS imports of local files',
    attack: '<link rel=stylesheet>, CSS @import and url() on file:// URLs, the secret file and /etc/passwd',
    from: 'html',
    to: 'pdf',
    engine: 'chromium',
    make: (c) =>
      `<!DOCTYPE html><html><head><link rel="stylesheet" href="file://${c.files.txt}"><link rel="stylesheet" href="file:///etc/passwd">
<style>@import url("file://${c.files.txt}"); @import "file:///etc/passwd"; body { background: url("file://${c.files.png}"); }
p::after { content: url("file://${c.files.svg}"); }</style></head><body><p>styled</p></body></html>`,
    allowed: { output: true },
  },
  {
    name: 'chromium: refresh to a local file, view-source and the metadata address',
    attack: 'meta refresh to file:// and view-source:, frames and fetches to 169.254.169.254, scripts on',
    from: 'html',
    to: 'pdf',
    engine: 'chromium',
    options: { javascript: true, wait_ms: 300 },
    make: (c) =>
      `<!DOCTYPE html><html><head><meta http-equiv="refresh" content="0;url=file://${c.files.txt}"></head><body><p>stay</p>
<iframe src="view-source:file://${c.files.txt}"></iframe><iframe src="http://169.254.169.254/latest/meta-data/"></iframe>
<img src="http://169.254.169.254/latest/meta-data/iam"><script>
fetch('http://169.254.169.254/latest/meta-data/').then(r => r.text()).then(t => document.body.append(t)).catch(() => {});
setTimeout(() => { location.href = 'view-source:file://${c.files.txt}'; }, 50);</script></body></html>`,
    allowed: { output: true, codes: ['CONVERT_FAILED'] },
  },
  {
    name: "chromium: refresh and requests to the server's own API",
    attack:
      'meta refresh, form post and fetch to a local HTTP service on loopback (the canary plays the API)',
    from: 'html',
    to: 'pdf',
    engine: 'chromium',
    options: { javascript: true, wait_ms: 300 },
    make: (c) =>
      `<!DOCTYPE html><html><head><meta http-equiv="refresh" content="0;url=${c.url}api/public/stats"></head><body>
<form id="f" method="post" action="${c.url}api/public/convert"><input name="meta" value="{}"></form><script>
fetch('${c.url}api/public/requests/recent', { method: 'GET' }).catch(() => {});
document.getElementById('f').submit();</script></body></html>`,
    allowed: { output: true, codes: ['CONVERT_FAILED'] },
  },
  {
    name: 'chromium: infinite loop',
    attack: 'a script that never ends: the step time limit stops it and the browser lives on',
    from: 'html',
    to: 'pdf',
    engine: 'chromium',
    options: { javascript: true },
    timeoutMs: 6_000,
    make: () => page('<p>loop</p>', 'for (;;) {}'),
    allowed: { codes: ['CONVERT_FAILED'] },
  },
  {
    name: 'chromium: memory bomb',
    attack: 'a script allocating without end: the renderer dies at its heap cap',
    from: 'html',
    to: 'pdf',
    engine: 'chromium',
    options: { javascript: true },
    timeoutMs: 30_000,
    make: () =>
      page('<p>bomb</p>', 'const keep = []; for (;;) keep.push(new Array(1e6).fill(Math.random()));'),
    allowed: { codes: ['CONVERT_FAILED'] },
  },
  {
    name: 'chromium: window.print and window.open loops',
    attack: 'print dialogs and popups opened over and over (no-ops in the page)',
    from: 'html',
    to: 'pdf',
    engine: 'chromium',
    options: { javascript: true, wait_ms: 300 },
    make: (c) =>
      page(
        '<p>print loop</p>',
        `for (let i = 0; i < 10000; i++) { window.print(); window.open('${c.url}popup'); alert('x'); }
setInterval(() => window.print(), 0);`,
      ),
    allowed: { output: true },
  },
  {
    name: 'chromium: ZIP with a link to the secret file',
    attack: 'a symlink entry in a web page ZIP naming the secret file, shown in an iframe',
    from: 'htmlzip',
    to: 'pdf',
    engine: 'chromium',
    make: (c) =>
      zip(
        {
          'index.html': page('<iframe src="secret.txt"></iframe><img src="secret.png">'),
          'secret.txt': c.files.txt,
          'secret.png': c.files.png,
        },
        [],
        { 'secret.txt': 0o120777, 'secret.png': 0o120777 },
      ),
    allowed: { output: true },
  },
];
