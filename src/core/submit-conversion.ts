import { formatMismatch } from '../detect/declared.js';
import type { DetectOptions, DetectReport } from '../detect/index.js';
import { FileconvError } from '../errors/index.js';
import { resolveFormat } from '../formats/index.js';
import type { QuotaKind } from '../identity/quota.js';
import { laneOf } from '../plan/lane.js';
import type { Plan } from '../plan/types.js';
import { assertVersionOpens } from '../plan/versions.js';
import type { ScratchSpace } from '../run/scratch.js';
import type { BlobStore, NewRequest, QuotaDraw, RequestStore, TimelineEvent } from '../store/types.js';
import type { OptionSecrets } from './option-secrets.js';
import { sourceFormatOf } from './source-format.js';

/** What filing a conversion needs: the stores, detection and the catalog, and the queue seam. */
export interface SubmitDeps {
  store: RequestStore;
  blobs: BlobStore;
  scratch: ScratchSpace;
  engine: {
    detect(file: string, hints: DetectOptions): Promise<DetectReport>;
    catalog(): Promise<{ plans: Plan[] }>;
    /** Reads a submission's options against what the plan's engines declare (INVALID_REQUEST). */
    checkOptions(plan: Plan, options: unknown): Promise<void>;
  };
  queue: { depth(): Promise<number>; submit(requestId: string, lane?: string): Promise<void> };
  /** Seals the passwords among the options before they are recorded. */
  optionSecrets: OptionSecrets;
}

/** An input the intake stored in the blob store. */
export interface StoredInput {
  key: string;
  /** The name it was sent under; its extension is the declared format. */
  filename: string;
  size: number;
  contentType: string;
}

/** The caller's daily quotas: who is counted, taking a unit and giving it back. */
export interface SubmitMetering {
  /** The string quotas and requests are filed under (`key:...` or the client's IP). */
  identity: string;
  /** Takes `units` (default 1) of the quota, all or none. */
  draw(kind: QuotaKind, units?: number): Promise<QuotaDraw>;
  refund(draw: QuotaDraw): Promise<unknown>;
}

/** Where the request's end is reported: checked before anything is counted, registered once filed. */
export interface SubmitWebhook {
  check(): Promise<void>;
  register(requestId: string): Promise<void>;
}

export interface ConversionSubmission {
  id: string;
  receivedAt: number;
  input: StoredInput;
  /** A catalog key (`docx-pdf`, aliases allowed); the source format is then the key's. */
  conversion?: string;
  /** The target; with no conversion, the source is resolved from the stored bytes by the one rule. */
  to?: string;
  options?: Record<string, unknown>;
  ownerHash: string | undefined;
  metering: SubmitMetering;
  webhook?: SubmitWebhook;
}

export interface SubmittedConversion {
  id: string;
  plan: Plan;
  report: DetectReport;
}

/** Detects a stored blob in place on disk, else through a local copy in a scratch folder. */
export function detectStored(
  deps: Pick<SubmitDeps, 'scratch' | 'blobs' | 'engine'>,
  key: string,
  hints: DetectOptions,
): Promise<DetectReport> {
  const local = deps.blobs.localPath?.(key);
  if (local) return deps.engine.detect(local, hints);
  return deps.scratch.withDir('detect', (dir) =>
    deps.blobs.withLocalCopy(key, dir, (path) => deps.engine.detect(path, hints)),
  );
}

/** Finds a catalog plan by key (`csv-json`), accepting aliases on either side (`jpeg-png`). */
export function findPlan(plans: readonly Plan[], key: string): Plan | undefined {
  const exact = plans.find((p) => p.key === key);
  if (exact) return exact;
  for (let i = key.indexOf('-'); i > 0; i = key.indexOf('-', i + 1)) {
    const from = resolveFormat(key.slice(0, i))?.id;
    const to = resolveFormat(key.slice(i + 1))?.id;
    const plan = from && to ? plans.find((p) => p.from === from && p.to === to) : undefined;
    if (plan) return plan;
  }
  return undefined;
}

function unsupported(key: string): FileconvError {
  return new FileconvError(
    'UNSUPPORTED_CONVERSION',
    `The conversion "${key.slice(0, 60)}" is not in the catalog; see GET /api/public/conversions.`,
  );
}

/** The plan a submission asks for, and the detection report when resolving it took one. */
async function planSubmission(
  deps: SubmitDeps,
  sub: ConversionSubmission,
): Promise<{ plan: Plan; report?: DetectReport }> {
  const { plans } = await deps.engine.catalog();
  if (sub.conversion !== undefined) {
    const plan = findPlan(plans, sub.conversion);
    if (!plan) throw unsupported(sub.conversion);
    if (sub.to !== undefined && resolveFormat(sub.to)?.id !== plan.to) {
      throw new FileconvError(
        'INVALID_REQUEST',
        `meta.to (${sub.to.slice(0, 20)}) does not match the conversion ${plan.key}.`,
      );
    }
    return { plan };
  }
  if (sub.to === undefined)
    throw new FileconvError(
      'INVALID_REQUEST',
      'A conversion (like "docx-pdf") or a target format is required.',
    );
  const { filename, contentType } = sub.input;
  const report = await detectStored(deps, sub.input.key, { filename, contentType });
  const to = resolveFormat(sub.to)?.id ?? sub.to;
  const from = sourceFormatOf(report);
  const plan = from ? findPlan(plans, `${from}-${to}`) : undefined;
  if (!plan) throw unsupported(`${from ?? 'unknown'}-${to}`);
  return { plan, report };
}

const usesVoice = (plan: Plan) =>
  plan.family === 'voice' || plan.steps.some((s) => s.edge.family === 'voice');

/**
 * Files a conversion of a stored input: plans it, validates its options against the plan, refuses
 * bytes that are not what the plan's source format says, takes one quota unit, records the request
 * and hands it to the queue. The input blob belongs to this call: it is deleted when the
 * submission is refused, and belongs to the request once it is filed.
 */
export async function submitConversion(
  deps: SubmitDeps,
  sub: ConversionSubmission,
): Promise<SubmittedConversion> {
  const { input } = sub;
  let filed = false;
  try {
    const planned = await planSubmission(deps, sub);
    const { plan } = planned;
    await deps.engine.checkOptions(plan, sub.options);
    await sub.webhook?.check();
    const report =
      planned.report ??
      (await detectStored(deps, input.key, {
        declared: plan.from,
        filename: input.filename,
        contentType: input.contentType,
      }));
    // Refused before any engine runs: an SVG uploaded as png never reaches an image decoder.
    const mismatch = formatMismatch(plan.from, { id: report.detected, confidence: report.confidence });
    if (mismatch) throw mismatch;
    assertVersionOpens(plan, report.version);
    const detectedAt = Date.now();
    await fileRequest(
      deps,
      sub,
      {
        conversion: plan.key,
        from: plan.from,
        to: plan.to,
        filename: input.filename,
        inputKey: input.key,
        steps: plan.steps.length,
        quota: usesVoice(plan) ? 'voice' : 'conversions',
        lane: laneOf(plan),
      },
      [
        {
          at: sub.receivedAt,
          kind: 'received',
          message: `Received ${input.filename} (${input.size} bytes) for ${plan.key}.`,
        },
        { at: detectedAt, kind: 'detected', message: detectMessage(report) },
      ],
    );
    filed = true;
    await startFiled(deps, sub, laneOf(plan));
    return { id: sub.id, plan, report };
  } finally {
    if (!filed) await deps.blobs.delete(input.key).catch(() => {});
  }
}

/** What a filed request is, besides what every submission gives (id, options, owner, metering). */
export interface FiledRequest {
  conversion: string;
  from: string | undefined;
  to: string;
  filename: string;
  inputKey: string;
  inputs?: NewRequest['inputs'];
  steps: number;
  quota: QuotaKind;
  /** The queue lane (src/plan/lane.ts). */
  lane: string;
}

/**
 * The end of every accepted submission: one quota unit taken (given back if recording fails),
 * the request recorded with its first timeline lines and a `queued` one, its webhook registered,
 * its job queued.
 */
export async function fileRequest(
  deps: SubmitDeps,
  sub: Pick<ConversionSubmission, 'id' | 'receivedAt' | 'options' | 'ownerHash' | 'metering' | 'webhook'>,
  filed: FiledRequest,
  events: TimelineEvent[],
): Promise<void> {
  // Only accepted work counts: the units are taken once the request is valid, just before it is
  // filed; a merge takes one per input, as each is a conversion of its own.
  const draw = await sub.metering.draw(filed.quota, filed.inputs?.length ?? 1);
  const ahead = await deps.queue.depth();
  const queuedAt = events.at(-1)?.at ?? Date.now();
  try {
    await deps.store.createRequest(
      {
        id: sub.id,
        kind: 'convert',
        status: 'running',
        conversion: filed.conversion,
        from: filed.from,
        to: filed.to,
        options: await deps.optionSecrets.seal(sub.options),
        filename: filed.filename,
        inputKey: filed.inputKey,
        inputs: filed.inputs,
        ownerHash: sub.ownerHash,
        identity: sub.metering.identity,
        quota: draw,
        lane: filed.lane,
        queue: 'queued',
        progress: { percent: 0, stage: 'queued', step: 0, steps: filed.steps },
        createdAt: sub.receivedAt,
      },
      [
        ...events,
        {
          at: queuedAt,
          kind: 'queued',
          message: `Queued behind ${ahead} other conversion${ahead === 1 ? '' : 's'}.`,
        },
      ],
    );
  } catch (e) {
    await sub.metering.refund(draw);
    throw e;
  }
}

/** A recorded request's webhook registered and its job queued (the inputs are the request's now). */
export async function startFiled(
  deps: SubmitDeps,
  sub: Pick<ConversionSubmission, 'id' | 'webhook'>,
  lane: string,
): Promise<void> {
  await sub.webhook?.register(sub.id);
  await deps.queue.submit(sub.id, lane);
}

/** The timeline line of a detection: what was found, and whether it matches the declared format. */
export function detectMessage(
  r: Pick<DetectReport, 'declared' | 'detected' | 'match' | 'confidence'>,
): string {
  const found = r.detected
    ? `Detected ${r.detected} (confidence ${r.confidence.toFixed(2)})`
    : 'The format could not be detected';
  if (!r.declared) return `${found}.`;
  return `${found}; declared ${r.declared}: ${r.match ? 'they match' : 'they differ'}.`;
}
