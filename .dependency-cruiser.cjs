/**
 * Which part of fileconv may import which: the one place the allowed directions are written.
 * `npm run lint` (and so CI) runs it: a new import cycle, or an import a stage is not allowed,
 * fails the build. Data flows intake -> detect -> plan -> run -> store -> serve; core holds the
 * use cases; cli, server, lib, web and docs are the shells on top. See docs/architecture.md.
 *
 * Each folder of src/ lists the folders of src/ it may import; a shell may import anything but
 * another shell it does not sit on. Pairs that import each other both ways are marked "to untie":
 * they are allowed today and listed in docs/architecture.md, and none may be added.
 */
const ALLOWED = {
  errors: [],
  formats: ['errors'],
  identity: [],
  detect: ['errors', 'formats'],
  // to untie: fonts finds its tools through run's binary lookup, and run gives engines the fonts.
  fonts: ['run'],
  // to untie: the converter contract names fidelity's ArtifactChecks type.
  engine: ['errors', 'fidelity', 'formats'],
  // to untie: fidelity runs its measuring tools (pdftotext, ffprobe) through run's process runner.
  fidelity: ['detect', 'engine', 'formats', 'run'],
  plan: ['engine', 'errors', 'formats'],
  run: ['detect', 'engine', 'errors', 'fidelity', 'fonts', 'formats', 'plan'],
  // to untie: intake streams uploads into store's BlobStore, and the S3 store names downloads with
  // intake's Content-Disposition.
  intake: ['errors', 'store'],
  store: ['errors', 'fidelity', 'formats', 'identity', 'intake', 'run'],
  core: ['detect', 'engine', 'errors', 'formats', 'identity', 'intake', 'plan', 'run', 'store'],
  selftest: ['detect', 'engine', 'errors', 'formats', 'plan', 'run'],
  server: [
    'core',
    'detect',
    'engine',
    'errors',
    'fidelity',
    'formats',
    'identity',
    'intake',
    'plan',
    'run',
    'store',
    'web',
  ],
  web: ['detect', 'engine', 'fidelity', 'formats'],
  lib: ['core', 'detect', 'engine', 'errors', 'formats', 'plan', 'run', 'server'],
  cli: [
    'core',
    'detect',
    'engine',
    'errors',
    'fonts',
    'formats',
    'identity',
    'intake',
    'plan',
    'run',
    'selftest',
    'server',
    'store',
  ],
  docs: ['engine', 'errors', 'fonts', 'formats', 'plan', 'server'],
};

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
      comment: 'Nothing below the shells imports a shell (cli, server, lib, web, docs) or the package entry.',
      from: {
        path: '^(converters|src/(errors|formats|identity|detect|fonts|engine|fidelity|plan|run|intake|store|core|selftest))/',
      },
      to: { path: '^src/(cli|server|lib|docs)/|^src/index\\.ts$' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
