import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFile } from '../../src/core/detect-file.js';
import { OptionSecrets } from '../../src/core/option-secrets.js';
import { runRequestJob } from '../../src/core/run-request.js';
import {
  type ConversionSubmission,
  type SubmitDeps,
  submitConversion,
} from '../../src/core/submit-conversion.js';
import { isFileconvError } from '../../src/errors/index.js';
import type { QuotaKind } from '../../src/identity/quota.js';
import { ScratchSpace } from '../../src/run/scratch.js';
import { coreEngine, type ServerEngine } from '../../src/server/jobs/engine.js';
import { DiskBlobStore } from '../../src/store/disk.js';
import { openDataDirRecords } from '../../src/store/sqlite-records.js';
import type { Records } from '../../src/store/types.js';
import { textPdf } from '../converters/_image-samples.js';

const IDENTITY = 'ip:192.0.2.7';
const DAILY = 10;
const MARKDOWN = '# Quarterly notes\n\nSales *rose* in the north.\n\n- one\n- two\n';

let dir: string;
let records: Records;
let blobs: DiskBlobStore;
let engine: ServerEngine;
let deps: SubmitDeps;
const queued: string[] = [];
let sequence = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileconv-submit-'));
  records = openDataDirRecords(dir);
  blobs = new DiskBlobStore(dir);
  await blobs.init();
  engine = await coreEngine();
  deps = {
    store: records.requests,
    blobs,
    scratch: new ScratchSpace(join(dir, 'scratch')),
    engine,
    queue: {
      depth: () => records.requests.countQueued(),
      submit: async (id) => {
        queued.push(id);
      },
    },
    optionSecrets: new OptionSecrets(),
  };
});

afterAll(async () => {
  await records.close();
  await rm(dir, { recursive: true, force: true });
});

/** Stores `content` as an upload named `filename` and returns a submission of it. */
async function stored(
  filename: string,
  content: string | Buffer,
  target: Pick<ConversionSubmission, 'conversion' | 'to' | 'options'>,
): Promise<ConversionSubmission> {
  const id = `req_core${++sequence}`;
  const source = join(dir, `${id}-${filename}`);
  await writeFile(source, content);
  const key = `inputs/${id}`;
  await blobs.putFile(key, source);
  return {
    id,
    receivedAt: Date.now(),
    input: { key, filename, size: Buffer.byteLength(content), contentType: 'application/octet-stream' },
    ...target,
    ownerHash: undefined,
    metering: {
      identity: IDENTITY,
      draw: async (kind: QuotaKind) => {
        const r = await records.quotas.consume(IDENTITY, kind, DAILY);
        return { kind, day: r.day };
      },
      refund: (draw) => records.quotas.refund(IDENTITY, draw),
    },
  };
}

const used = async () => DAILY - (await records.quotas.peek(IDENTITY, 'conversions', DAILY)).remaining;

async function refusal(sub: ConversionSubmission): Promise<string> {
  const error = await submitConversion(deps, sub).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isFileconvError(error)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error.code;
}

describe('submitConversion', () => {
  it('files a conversion that a worker then runs with the real engine', async () => {
    const sub = await stored('notes.md', MARKDOWN, { conversion: 'markdown-html' });
    const before = await used();
    const submitted = await submitConversion(deps, sub);
    expect(submitted.plan.key).toBe('md-html');
    expect(submitted.report.detected).toBe('md');
    expect(queued).toContain(sub.id);
    expect(await used()).toBe(before + 1);

    const record = await records.requests.getRequest(sub.id);
    expect(record).toMatchObject({ status: 'running', conversion: 'md-html', identity: IDENTITY });
    const kinds = (await records.requests.timeline(sub.id)).map((e) => e.kind);
    expect(kinds).toEqual(['received', 'detected', 'queued']);

    const outcome = await runRequestJob(
      {
        ...deps,
        engine,
        retentionMs: 60_000,
        log: () => {},
      },
      sub.id,
      new AbortController().signal,
    );
    expect(outcome).toBe('succeeded');
    const [artifact] = await records.requests.artifacts(sub.id);
    const html = await blobs.withLocalCopy(artifact!.blobKey, join(dir, 'scratch'), (path) =>
      readFile(path, 'utf8'),
    );
    expect(html).toMatch(/<h1[^>]*>Quarterly notes<\/h1>/);
    expect(html).toContain('<em>rose</em>');
  });

  it('records passwords sealed, and the worker that runs the request opens them', async () => {
    const marker = `pw-${randomUUID()}`;
    const pdf = readFileSync(await textPdf(dir, ['Sealed page one'], 'sealed-src.pdf'));
    const sub = await stored('letter.pdf', pdf, {
      conversion: 'pdf-pdf',
      options: { user_password: marker },
    });
    await submitConversion(deps, sub);
    const record = await records.requests.getRequest(sub.id);
    expect(String(record?.options?.user_password)).toMatch(/^sealed:v1:/);
    expect(JSON.stringify(record)).not.toContain(marker);
    const outcome = await runRequestJob(
      { ...deps, engine, retentionMs: 60_000, log: () => {} },
      sub.id,
      new AbortController().signal,
    );
    expect(outcome).toBe('succeeded');
    const [artifact] = await records.requests.artifacts(sub.id);
    const out = join(dir, 'sealed-out.pdf');
    await blobs.withLocalCopy(artifact!.blobKey, join(dir, 'scratch'), (path) => copyFile(path, out));
    // Protected with exactly the password given: qpdf needs it (exit 0 without, 3 with).
    expect(spawnSync('qpdf', ['--requires-password', out]).status).toBe(0);
    expect(spawnSync('qpdf', [`--password=${marker}`, '--requires-password', out]).status).toBe(3);
    const timeline = JSON.stringify(await records.requests.timeline(sub.id));
    expect(timeline).not.toContain(marker);
    expect(timeline).toContain('takes user_password');
    // Nowhere in the database's bytes, write-ahead log included.
    const databaseFiles = readdirSync(dir).filter((f) => f.startsWith('fileconv.db'));
    expect(databaseFiles).toContain('fileconv.db');
    for (const file of databaseFiles)
      expect(readFileSync(join(dir, file)).includes(Buffer.from(marker))).toBe(false);
  });

  it('resolves the source format from the bytes and the name when only a target is given', async () => {
    const sub = await stored('notes.md', MARKDOWN, { to: 'html' });
    const submitted = await submitConversion(deps, sub);
    expect(submitted.plan.key).toBe('md-html');
  });

  it('refuses an unknown conversion, bad options and mismatched bytes before counting or filing', async () => {
    const before = await used();
    const cases: [ConversionSubmission, string][] = [
      [await stored('notes.md', MARKDOWN, { conversion: 'md-nothing' }), 'UNSUPPORTED_CONVERSION'],
      [
        await stored('notes.md', MARKDOWN, { conversion: 'md-html', options: { bogus: 1 } }),
        'INVALID_REQUEST',
      ],
      [await stored('notes.md', MARKDOWN, { conversion: 'md-html', to: 'pdf' }), 'INVALID_REQUEST'],
      [
        await stored('photo.png', '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>', {
          conversion: 'png-jpg',
        }),
        'FORMAT_MISMATCH',
      ],
    ];
    for (const [sub, code] of cases) {
      expect(await refusal(sub)).toBe(code);
      expect(await records.requests.getRequest(sub.id)).toBeUndefined();
      expect(await blobs.stat(sub.input.key)).toBeUndefined();
      expect(queued).not.toContain(sub.id);
    }
    expect(await used()).toBe(before);
  });
});

describe('detectFile', () => {
  it('records one file check, counts it and deletes the input', async () => {
    const { id, receivedAt, input, ownerHash, metering } = await stored('table.txt', 'a,b\n1,2\n3,4\n', {});
    const checks = async () => DAILY - (await records.quotas.peek(IDENTITY, 'file_checks', DAILY)).remaining;
    const before = await checks();
    const report = await detectFile(deps, { id, receivedAt, input, ownerHash, metering });
    expect(report).toMatchObject({ declared: 'txt', detected: 'csv' });
    expect(await checks()).toBe(before + 1);
    expect(await records.requests.getRequest(id)).toMatchObject({ kind: 'detect', status: 'succeeded' });
    expect(await blobs.stat(input.key)).toBeUndefined();
  });
});
