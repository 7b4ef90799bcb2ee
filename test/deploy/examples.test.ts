import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import {
  SIGNING_SECRET_ENV,
  WEBHOOK_SECRET_ENV,
  weakSigningSecret,
} from '../../src/server/access/secrets.js';
import { ENV_NAMES } from '../../src/server/config.js';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/**
 * The environment variables fileconv reads: every option of the configuration schema, the shared
 * secrets, and the S3 client's settings (docs/scaling.md).
 */
const KNOWN_ENV = new Set([
  ...Object.values(ENV_NAMES),
  SIGNING_SECRET_ENV,
  WEBHOOK_SECRET_ENV,
  'FILECONV_S3_ENDPOINT',
  'FILECONV_METRICS_TOKEN',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_REGION',
]);

/** The flags `fileconv serve` and `fileconv worker` take, as the CLI declares them. */
async function commandFlags(): Promise<Record<string, Set<string>>> {
  const program = new Command();
  for (const m of [await import('../../src/cli/serve.js'), await import('../../src/cli/worker.js')])
    m.register(program);
  return Object.fromEntries(program.commands.map((c) => [c.name(), new Set(c.options.map((o) => o.long!))]));
}

/** fileconv's own variables in a text: the FILECONV_* and AWS_* names. */
const envNamesIn = (text: string) => [...new Set(text.match(/\b(?:FILECONV|AWS)_[A-Z0-9_]+\b/g) ?? [])];

/** A fileconv command line (`serve --no-worker`) checked against the CLI's flags. */
function checkCommand(args: readonly string[], flags: Record<string, Set<string>>, where: string): void {
  const [command, ...rest] = args;
  expect(['serve', 'worker'], where).toContain(command);
  for (const a of rest.filter((x) => x.startsWith('--')))
    expect(flags[command!]!.has(a.split('=')[0]!), `${where}: ${command} has no ${a}`).toBe(true);
}

describe('deployment examples', () => {
  it('compose: parses, builds the repository’s Dockerfile, runs serve and worker with known flags and variables', async () => {
    const text = read('deploy/compose.yaml');
    const compose = parseYaml(text, { merge: true }) as {
      services: Record<
        string,
        {
          build?: { context: string; dockerfile: string };
          command?: string[];
          environment?: Record<string, string>;
          image?: string;
        }
      >;
    };
    const { api, worker, postgres, minio } = compose.services;
    expect(postgres && minio).toBeTruthy();
    expect(join(ROOT, 'deploy', api!.build!.context, api!.build!.dockerfile)).toBe(join(ROOT, 'Dockerfile'));
    expect(worker!.image).toBe(api!.image);
    const flags = await commandFlags();
    checkCommand(api!.command!, flags, 'compose api');
    checkCommand(worker!.command!, flags, 'compose worker');
    expect(api!.command).toContain('--no-worker');
    // Both share the same settings, database and storage included.
    for (const s of [api!, worker!])
      expect(Object.keys(s.environment!)).toEqual(
        expect.arrayContaining(['FILECONV_DATABASE_URL', 'FILECONV_STORAGE', SIGNING_SECRET_ENV]),
      );
    for (const name of envNamesIn(text)) expect(KNOWN_ENV.has(name), `compose.yaml names ${name}`).toBe(true);
  });

  it('compose: the worker asks no HTTP healthcheck, the app is not MinIO’s root, every image pulled is pinned', () => {
    const compose = parseYaml(read('deploy/compose.yaml'), { merge: true }) as {
      services: Record<
        string,
        {
          build?: unknown;
          image?: string;
          environment?: Record<string, string>;
          healthcheck?: { disable?: boolean; test?: string[] };
        }
      >;
    };
    const { api, worker, minio } = compose.services;
    // The image's HEALTHCHECK asks /readyz; a worker has no HTTP port to answer it.
    expect(worker!.healthcheck?.disable).toBe(true);
    const app = api!.environment!;
    const root = minio!.environment!;
    expect(app.AWS_ACCESS_KEY_ID).not.toBe(root.MINIO_ROOT_USER);
    expect(app.AWS_SECRET_ACCESS_KEY).not.toContain('MINIO_ROOT_PASSWORD');
    for (const [name, s] of Object.entries(compose.services)) {
      if (s.build || s.image === api!.image) continue;
      // A release tag (or a digest), never the moving default.
      expect(s.image, `${name} is pinned`).toMatch(/^[^:@]+(:(?!latest$)[\w.-]+|@sha256:[0-9a-f]{64})$/);
    }
    expect(minio!.image).toMatch(/:RELEASE\./);
  });

  it('Kubernetes: Deployments for API nodes and workers, a Service, probes on /healthz and /readyz, the signing secret in a Secret', async () => {
    const text = read('deploy/kubernetes/fileconv.yaml');
    // biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field.
    const docs = parseAllDocuments(text).map((d) => d.toJS() as any);
    for (const d of parseAllDocuments(text)) expect(d.errors).toEqual([]);
    const kinds = docs.map((d) => `${d.kind}/${d.metadata.name}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'Secret/fileconv',
        'Service/fileconv',
        'Deployment/fileconv-api',
        'Deployment/fileconv-worker',
      ]),
    );
    const secret = docs.find((d) => d.kind === 'Secret');
    expect(Object.keys(secret.stringData)).toContain(SIGNING_SECRET_ENV);
    const flags = await commandFlags();
    const container = (name: string) =>
      docs.find((d) => d.metadata.name === name).spec.template.spec.containers[0];
    const api = container('fileconv-api');
    checkCommand(api.args, flags, 'kubernetes api');
    checkCommand(container('fileconv-worker').args, flags, 'kubernetes worker');
    expect(api.livenessProbe.httpGet.path).toBe('/healthz');
    expect(api.readinessProbe.httpGet.path).toBe('/readyz');
    const service = docs.find((d) => d.kind === 'Service');
    expect(service.spec.selector).toEqual(
      docs.find((d) => d.metadata.name === 'fileconv-api').spec.selector.matchLabels,
    );
    for (const name of envNamesIn(text))
      expect(KNOWN_ENV.has(name), `fileconv.yaml names ${name}`).toBe(true);
    const config = docs.find((d) => d.kind === 'ConfigMap');
    for (const name of [...Object.keys(config.data), ...Object.keys(secret.stringData)])
      expect(KNOWN_ENV.has(name), `${name} is not a fileconv setting`).toBe(true);
    // The shipped signing secret is a placeholder the server refuses (test/hostile/signing-secret.test.ts).
    expect(weakSigningSecret(secret.stringData[SIGNING_SECRET_ENV])).toMatch(/placeholder/);
  });

  it('Kubernetes: every container is limited, cannot gain privileges, has no capabilities and a read-only root', () => {
    // biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field.
    const docs = parseAllDocuments(read('deploy/kubernetes/fileconv.yaml')).map((d) => d.toJS() as any);
    const deployments = docs.filter((d) => d.kind === 'Deployment');
    expect(deployments.length).toBe(2);
    for (const d of deployments) {
      const pod = d.spec.template.spec;
      const where = d.metadata.name;
      expect(pod.securityContext.runAsNonRoot, where).toBe(true);
      expect(pod.securityContext.seccompProfile?.type, where).toBe('RuntimeDefault');
      expect(pod.automountServiceAccountToken, where).toBe(false);
      for (const c of pod.containers) {
        expect(c.resources.limits, where).toEqual(
          expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }),
        );
        expect(c.securityContext, where).toEqual(
          expect.objectContaining({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          }),
        );
        // With the root read-only, the data folder and /tmp are the places left to write.
        const mounts = c.volumeMounts.map((m: { mountPath: string }) => m.mountPath);
        expect(mounts, where).toEqual(expect.arrayContaining(['/data', '/tmp']));
      }
    }
  });

  it('systemd: runs `fileconv serve` as its own user with known variables, and systemd accepts the unit', () => {
    const text = read('deploy/systemd/fileconv.service');
    expect(text).toMatch(/^ExecStart=.*fileconv serve$/m);
    expect(text).toMatch(/^User=fileconv$/m);
    expect(text).toMatch(/^KillSignal=SIGTERM$/m);
    for (const name of envNamesIn(text))
      expect(KNOWN_ENV.has(name), `fileconv.service names ${name}`).toBe(true);
    // Hardening must leave bubblewrap its namespaces.
    expect(text).not.toMatch(/^(RestrictNamespaces|PrivateUsers)=/m);
  });

  it.skipIf(spawnSync('systemd-analyze', ['--version']).status !== 0)(
    'systemd: systemd-analyze verify finds nothing wrong in the unit (skipped: no systemd-analyze)',
    () => {
      const r = spawnSync(
        'systemd-analyze',
        ['verify', '--man=no', join(ROOT, 'deploy/systemd/fileconv.service')],
        {
          encoding: 'utf8',
        },
      );
      // The unit's own lines only: a host without the fileconv binary or user is not the unit's fault.
      const own = r.stderr.split('\n').filter((l) => l.includes('fileconv.service:'));
      expect(own).toEqual([]);
    },
  );

  it('the Dockerfile takes the same variables and shows the image’s settings', () => {
    const text = read('Dockerfile');
    expect(text).toMatch(/^FROM debian:bookworm-slim/m);
    expect(text).toMatch(/^USER fileconv$/m);
    expect(text).toMatch(/^VOLUME \/data$/m);
    expect(text).toMatch(/^HEALTHCHECK .*\n.*\/readyz/m);
    for (const name of envNamesIn(text)) expect(KNOWN_ENV.has(name), `Dockerfile names ${name}`).toBe(true);
  });
});
