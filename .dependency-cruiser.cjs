/**
 * Which part of fileconv may import which: the one place the allowed directions are written.
 * `npm run lint` (and so CI) runs it: a new import cycle, or an import a stage is not allowed,
 * fails the build. Data flows intake -> detect -> plan -> run -> store -> serve; core holds the
 * use cases; cli, server, lib, web and docs are the shells on top. See docs/architecture.md.
 *
 * Each folder of src/ lists the folders of src/ it may import; a shell may import anything but
 * another shell it does not sit on. No two folders may import each other: the table has no pair
 * that names each other, and the check below refuses one if it is added.
 */
const ALLOWED = {
  errors: [],
  formats: ['errors'],
  identity: [],
  detect: ['errors', 'formats'],
  fonts: [],
  // The converter contract holds what an artifact's checks are (checks.ts); fidelity measures them.
  engine: ['errors', 'formats'],
  // Fidelity reads what measuring tools print; run starts them (src/run/measure-tools.ts).
  fidelity: ['detect', 'engine', 'formats'],
  plan: ['engine', 'errors', 'formats'],
  run: ['detect', 'engine', 'errors', 'fidelity', 'fonts', 'formats', 'plan'],
  // Uploads stream into store's BlobStore; the store knows nothing of intake.
  intake: ['errors', 'store'],
  store: ['engine', 'errors', 'formats', 'identity', 'run'],
  core: ['detect', 'engine', 'errors', 'formats', 'identity', 'intake', 'plan', 'run', 'store'],
  selftest: ['detect', 'engine', 'errors', 'formats', 'plan', 'run'],
  // The MCP tools: a shell over core that the server mounts at /mcp and the CLI serves on stdio.
  mcp: ['core', 'detect', 'engine', 'errors', 'formats', 'plan', 'run'],
  server: [
    'core',
    'detect',
    'engine',
    'errors',
    'fidelity',
    'formats',
    'identity',
    'intake',
    'mcp',
    'plan',
    'run',
    'store',
    'web',
  ],
  web: ['detect', 'engine', 'formats'],
  lib: ['core', 'detect', 'engine', 'errors', 'formats', 'plan', 'run', 'server'],
  // The typed HTTP client (fileconv/client): the API's own error codes, nothing of the server.
  client: ['errors'],
  cli: [
    'client',
    'core',
    'detect',
    'engine',
    'errors',
    'fonts',
    'formats',
    'identity',
    'intake',
    'mcp',
    'plan',
    'run',
    'selftest',
    'server',
    'store',
  ],
  docs: ['engine', 'errors', 'fonts', 'formats', 'plan', 'server'],
};

// Two folders that may import each other are a circle waiting to happen: refuse the table itself.
for (const [stage, allowed] of Object.entries(ALLOWED)) {
  const back = allowed.find((other) => ALLOWED[other]?.includes(stage));
  if (back)
    throw new Error(`.dependency-cruiser.cjs: src/${stage} and src/${back} may not import each other`);
}

/** What the engines in converters/ may use of src/: the engine contract and the tools below it. */
const CONVERTERS_MAY_USE = ['detect', 'engine', 'errors', 'fidelity', 'fonts', 'formats', 'run'];

const STAGES = Object.keys(ALLOWED);
const other = (allowed) => STAGES.filter((s) => !allowed.includes(s));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Modules that import each other, directly or around a circle: move what both need to a module both can import.',
      from: {},
      to: { circular: true },
    },
    ...Object.entries(ALLOWED).map(([stage, allowed]) => ({
      name: `${stage}-imports`,
      severity: 'error',
      comment: `src/${stage} may import only ${allowed.length > 0 ? allowed.map((a) => `src/${a}`).join(', ') : 'no other part of src'} (.dependency-cruiser.cjs)`,
      from: { path: `^src/${stage}/` },
      to: { path: `^src/(${other([stage, ...allowed]).join('|')})/` },
    })),
    {
      name: 'converters-imports',
      severity: 'error',
      comment: `converters/ may import only ${CONVERTERS_MAY_USE.map((a) => `src/${a}`).join(', ')} (.dependency-cruiser.cjs)`,
      from: { path: '^converters/' },
      to: { path: `^src/(${other(CONVERTERS_MAY_USE).join('|')})/` },
    },
    {
      name: 'no-shell-below',
      severity: 'error',
      comment:
        'Nothing below the shells imports a shell (cli, server, lib, web, docs, mcp, client) or the package entry.',
      from: {
        path: '^(converters|src/(errors|formats|identity|detect|fonts|engine|fidelity|plan|run|intake|store|core|selftest))/',
      },
      to: { path: '^src/(cli|server|lib|docs|mcp|client)/|^src/index\\.ts$' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
