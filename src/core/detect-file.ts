import type { DetectReport } from '../detect/index.js';
import { FileconvError } from '../errors/index.js';
import {
  detectMessage,
  detectStored,
  type StoredInput,
  type SubmitDeps,
  type SubmitMetering,
} from './submit-conversion.js';

/** Detection answers within this time or fails (api.md: synchronous, at most 20 s). */
const DETECT_TIMEOUT_MS = 20_000;

export interface DetectSubmission {
  id: string;
  receivedAt: number;
  input: StoredInput;
  /** The format the caller says the file is; the file name's extension when not given. */
  declared?: string;
  ownerHash: string | undefined;
  metering: SubmitMetering;
}

async function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => FileconvError): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Checks a stored input: takes one file-check unit, detects it (given back when no report comes
 * within DETECT_TIMEOUT_MS), records the finished check and deletes the input whatever happens.
 */
export async function detectFile(
  deps: Pick<SubmitDeps, 'store' | 'blobs' | 'scratch' | 'engine'>,
  sub: DetectSubmission,
): Promise<DetectReport> {
  const { input, metering } = sub;
  try {
    const draw = await metering.draw('file_checks');
    const report = await withTimeout(
      detectStored(deps, input.key, {
        declared: sub.declared,
        filename: input.filename,
        contentType: input.contentType,
      }),
      DETECT_TIMEOUT_MS,
      () => new FileconvError('CONVERT_API_UNAVAILABLE', 'Detection took longer than 20 s; retry later.'),
    ).catch(async (e: unknown) => {
      // A check that produced no report is not counted.
      await metering.refund(draw);
      throw e;
    });
    await deps.store.createRequest(
      {
        id: sub.id,
        kind: 'detect',
        status: 'succeeded',
        filename: input.filename,
        ownerHash: sub.ownerHash,
        identity: metering.identity,
        queue: 'done',
        progress: { percent: 100, stage: 'done', step: 0, steps: 0 },
        report: { ...report },
        createdAt: sub.receivedAt,
      },
      [
        {
          at: sub.receivedAt,
          kind: 'received',
          message: `Received ${input.filename} (${input.size} bytes).`,
        },
        { at: Date.now(), kind: 'detected', message: detectMessage(report) },
      ],
    );
    return report;
  } finally {
    await deps.blobs.delete(input.key).catch(() => {});
  }
}
