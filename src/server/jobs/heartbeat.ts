import { randomBytes } from 'node:crypto';
import type { ClaimTicket, RequestStore } from '../../store/types.js';

/** The abort reason of a run whose claim another worker now holds (or that could not be kept). */
export class ClaimLost extends Error {}

/** How often a worker beats for a heartbeat limit: six beats a limit, so a few lost ones do not matter. */
export function beatInterval(limitMs: number): number {
  return Math.max(200, Math.floor(limitMs / 6));
}

/**
 * The heartbeat of one claimed conversion on the shared queue. The ticket's token is random and
 * stays in this process (the records keep its hash), so only this worker can keep the claim
 * alive. A beat the store refuses means the claim was handed on (this worker was taken for dead,
 * say after a long pause): the run is aborted with ClaimLost. When no beat could be stored for a
 * whole limit (the database unreachable), other workers may already have taken the conversion,
 * so the run stops too.
 */
export class Heartbeat {
  readonly ticket: ClaimTicket;
  private timer: NodeJS.Timeout | undefined;
  private lastStored = 0;
  private beating = false;

  constructor(
    private readonly store: RequestStore,
    private readonly requestId: string,
    private readonly limitMs: number,
    private readonly onLost: (reason: ClaimLost) => void,
    private readonly log: (message: string) => void,
  ) {
    this.ticket = { token: randomBytes(32).toString('base64url'), staleBefore: Date.now() - limitMs };
  }

  /** The claim holds from now: beats start. */
  start(): void {
    this.lastStored = Date.now();
    this.timer = setInterval(() => void this.beat(), beatInterval(this.limitMs));
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    const now = Date.now();
    try {
      if (await this.store.heartbeat(this.requestId, this.ticket.token, now)) this.lastStored = now;
      else if (this.timer) this.lose('its claim was handed to another worker');
    } catch (e) {
      this.log(`heartbeat of ${this.requestId} not stored: ${(e as Error).message}`);
      if (now - this.lastStored > this.limitMs) this.lose('no heartbeat could be stored');
    } finally {
      this.beating = false;
    }
  }

  private lose(why: string): void {
    this.stop();
    this.onLost(new ClaimLost(`conversion ${this.requestId} stopped: ${why}`));
  }
}
