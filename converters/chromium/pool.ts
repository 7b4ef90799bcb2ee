import { rm } from 'node:fs/promises';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { FileconvError } from '../../src/errors/index.js';
import { type LaunchedBrowser, launchBrowser } from './launch.js';

/**
 * One warm headless browser per process, shared by every conversion: starting Chromium costs
 * about half a second and a page in a warm one a fraction of that. Each conversion gets a fresh
 * browser context (its own cookies, storage and cache, nothing shared with the one before), closed
 * when it ends, prepared before the conversion asks for it (see `replenish`). The browser is
 * replaced after a number of conversions, when it crashes, and when a context it holds cannot be
 * closed (a renderer stuck in a script); its prepared contexts go with it.
 */

/** A context no page has used yet, with its page and what `prepare` made of them. */
interface Fresh {
  context: BrowserContext;
  page: Page;
  prepared: unknown;
  /** The page's renderer died while it waited (memory pressure, a killed process). */
  crashed: boolean;
}

/** A context being prepared, or ready, for the next conversion with the same recipe. */
interface Spare {
  key: string;
  ready: Promise<Fresh | undefined>;
}

interface Warm {
  launched: LaunchedBrowser & { sandboxError?: string };
  conversions: number;
  active: number;
  retiring: boolean;
  /** The next conversions' contexts, prepared ahead with the recipe of the last one. */
  spares: Spare[];
  /** Spares are prepared one at a time, so preparing never takes both cores from a conversion. */
  preparing: Promise<unknown>;
}

interface Slot {
  promise: Promise<Warm>;
  warm?: Warm;
}

/**
 * How many pages the browser prints at once (the engine's concurrency), and so how many contexts
 * are kept ready: a burst of that many requests all start on a ready page.
 */
export const BROWSER_CONCURRENCY = 2;

/** How long closing a context may take before the browser is taken for stuck and replaced. */
const CONTEXT_CLOSE_MS = 5_000;

let slot: Slot | undefined;
let conversions = 0;
let restarts: Record<string, number> = {};
let lastMode: { mode: string; sandboxError?: string } | undefined;

function maxConversions(): number {
  const fromEnv = Number(process.env.FILECONV_CHROMIUM_MAX_CONVERSIONS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 100;
}

function usable(w: Warm): boolean {
  return !w.retiring && w.launched.browser.isConnected();
}

function stop(w: Warm): void {
  w.launched.browser
    .close()
    .catch(() => undefined)
    .then(() => rm(w.launched.profile, { recursive: true, force: true }))
    .catch(() => undefined);
}

function retire(w: Warm, why: string, log?: (m: string) => void): void {
  if (w.retiring) return;
  w.retiring = true;
  // Its spares close with it: they are contexts of this browser.
  w.spares = [];
  restarts[why] = (restarts[why] ?? 0) + 1;
  log?.(`browser replaced (${why})`);
  if (slot?.warm === w) slot = undefined;
  // A browser retired for its age finishes the pages it is printing first.
  if (w.active === 0 || why !== 'conversion limit') stop(w);
}

function acquire(log?: (m: string) => void): Promise<Warm> {
  if (slot && (!slot.warm || usable(slot.warm))) return slot.promise;
  if (slot?.warm) retire(slot.warm, 'crashed', log);
  const fresh: Slot = {
    promise: launchBrowser().then(
      (launched) => {
        const w: Warm = {
          launched,
          conversions: 0,
          active: 0,
          retiring: false,
          spares: [],
          preparing: Promise.resolve(),
        };
        fresh.warm = w;
        lastMode = { mode: launched.mode, sandboxError: launched.sandboxError };
        launched.browser.on('disconnected', () => {
          if (!w.retiring) retire(w, 'crashed');
        });
        return w;
      },
      (e: unknown) => {
        if (slot === fresh) slot = undefined;
        throw new FileconvError('CONVERT_FAILED', `Chromium could not start: ${(e as Error).message}`, {
          cause: e,
        });
      },
    ),
  };
  slot = fresh;
  log?.('starting the browser');
  return fresh.promise;
}

async function closeContext(w: Warm, context: BrowserContext, log?: (m: string) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    context.close().then(
      () => true,
      () => !w.launched.browser.isConnected(),
    ),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), CONTEXT_CLOSE_MS);
    }),
  ]);
  clearTimeout(timer);
  if (!closed) retire(w, 'stuck page', log);
}

/**
 * How a conversion's context is made: its options, and what is done to it and its page before
 * the document is known (request interception, media, a first page load). Two recipes with the
 * same options and `variant` make interchangeable contexts.
 */
export interface Recipe<P> {
  context: BrowserContextOptions;
  /** What `prepare` does beyond the context options (JSON), for telling recipes apart. */
  variant?: unknown;
  prepare(context: BrowserContext, page: Page): Promise<P>;
}

function keyOf(recipe: Recipe<unknown>): string {
  return JSON.stringify([recipe.context, recipe.variant ?? null]);
}

async function openFresh(w: Warm, recipe: Recipe<unknown>): Promise<Fresh> {
  const context = await w.launched.browser.newContext(recipe.context);
  try {
    const page = await context.newPage();
    const fresh: Fresh = { context, page, prepared: undefined, crashed: false };
    page.on('crash', () => {
      fresh.crashed = true;
    });
    fresh.prepared = await recipe.prepare(context, page);
    return fresh;
  } catch (e) {
    await context.close().catch(() => undefined);
    throw e;
  }
}

function discard(spare: Spare): void {
  void spare.ready.then((f) => f?.context.close().catch(() => undefined));
}

/** A fresh context for a conversion: a prepared one of the same recipe, else one opened now. */
async function takeFresh(w: Warm, recipe: Recipe<unknown>): Promise<Fresh> {
  const key = keyOf(recipe);
  const at = w.spares.findIndex((s) => s.key === key);
  if (at >= 0) {
    const [spare] = w.spares.splice(at, 1);
    const fresh = await spare!.ready;
    if (fresh && !fresh.crashed && !fresh.page.isClosed()) return fresh;
    if (fresh) void fresh.context.close().catch(() => undefined);
  }
  return openFresh(w, recipe);
}

/**
 * Prepares contexts for the next conversions with this recipe, up to the engine's concurrency:
 * starting a context's renderer process and loading its first page cost more than printing an
 * invoice, and between requests the browser is idle. Spares of another recipe make way. Each is
 * prepared after the one before it, so they never compete with each other for the CPU.
 */
function replenish(w: Warm, recipe: Recipe<unknown>): void {
  if (!usable(w)) return;
  const key = keyOf(recipe);
  for (const other of w.spares.filter((s) => s.key !== key)) discard(other);
  w.spares = w.spares.filter((s) => s.key === key);
  while (w.spares.length < BROWSER_CONCURRENCY) {
    const ready = w.preparing
      .then(() => (usable(w) ? openFresh(w, recipe) : undefined))
      .catch(() => undefined);
    w.preparing = ready;
    w.spares.push({ key, ready });
  }
}

export interface PageJob<T, P> extends Recipe<P> {
  timeoutMs: number;
  signal: AbortSignal;
  log?: (message: string) => void;
  /** Works on the fresh context's prepared page; must honour `deadline` (ms since the epoch) for its own waits. */
  run(page: Page, prepared: P, deadline: number): Promise<T>;
}

function timedOut(timeoutMs: number): FileconvError {
  return new FileconvError(
    'CONVERT_FAILED',
    `Chromium took longer than ${Math.max(1, Math.round(timeoutMs / 1000))} s and was stopped.`,
  );
}

/**
 * Runs `job.run` in a fresh context of the warm browser, within the job's time limit. A browser
 * that crashed under the page is replaced and the page tried once more on the fresh one.
 */
export async function withBrowserContext<T, P>(job: PageJob<T, P>): Promise<T> {
  const deadline = Date.now() + job.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    if (job.signal.aborted) throw new FileconvError('CONVERT_FAILED', 'The conversion was cancelled.');
    const w = await acquire(job.log);
    w.active++;
    let context: BrowserContext | undefined;
    let timer: NodeJS.Timeout | undefined;
    let stopped: FileconvError | undefined;
    const onAbort = () => {
      stopped = new FileconvError('CONVERT_FAILED', 'The conversion was cancelled.');
      void context?.close().catch(() => undefined);
    };
    try {
      const fresh = await takeFresh(w, job);
      context = fresh.context;
      job.signal.addEventListener('abort', onAbort, { once: true });
      const guard = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          stopped = timedOut(job.timeoutMs);
          reject(stopped);
        }, deadline - Date.now());
      });
      return await Promise.race([job.run(fresh.page, fresh.prepared as P, deadline), guard]);
    } catch (e) {
      if (stopped) throw stopped;
      const crashed = !w.launched.browser.isConnected();
      if (crashed && attempt === 0 && Date.now() < deadline) {
        job.log?.('the browser crashed; trying once more on a fresh one');
        continue;
      }
      if (e instanceof FileconvError) throw e;
      throw new FileconvError('CONVERT_FAILED', `Chromium failed: ${(e as Error).message}`.slice(0, 600), {
        cause: e,
      });
    } finally {
      clearTimeout(timer);
      job.signal.removeEventListener('abort', onAbort);
      // Closed behind the caller's back: the output is written, and a stuck close retires the browser.
      if (context) void closeContext(w, context, job.log);
      w.active--;
      w.conversions++;
      conversions++;
      if (w.conversions >= maxConversions()) retire(w, 'conversion limit', job.log);
      if (w.retiring && w.active === 0) stop(w);
      else replenish(w, job);
    }
  }
}

export interface BrowserPoolStatus {
  running: boolean;
  /** The running browser's profile folder (its command line names it). */
  profile?: string;
  mode?: string;
  sandboxError?: string;
  conversions: number;
  maxConversions: number;
  restarts: Record<string, number>;
  /** Contexts open in the running browser: the prepared ones and those of running conversions. */
  contexts: number;
  /** Contexts prepared, or being prepared, for the next conversions. */
  prepared: number;
}

/** The warm browser's state for doctor, tests and benchmarks. */
export function browserPoolStatus(): BrowserPoolStatus {
  return {
    running: slot?.warm !== undefined && usable(slot.warm),
    profile: slot?.warm?.launched.profile,
    ...lastMode,
    conversions,
    maxConversions: maxConversions(),
    restarts: { ...restarts },
    contexts: slot?.warm?.launched.browser.contexts().length ?? 0,
    prepared: slot?.warm?.spares.length ?? 0,
  };
}

/**
 * Starts the browser now (doctor, benchmarks): a browser that cannot start says so here. With a
 * recipe, also prepares contexts of it and waits until they are ready.
 */
export async function warmBrowser(recipe?: Recipe<unknown>): Promise<BrowserPoolStatus> {
  const w = await acquire();
  if (recipe) {
    replenish(w, recipe);
    await Promise.all(w.spares.map((s) => s.ready));
  }
  return browserPoolStatus();
}

/** Closes the browser and removes its profile; the next conversion starts a new one. */
export async function closeBrowserPool(): Promise<void> {
  const current = slot;
  slot = undefined;
  const w = await current?.promise.catch(() => undefined);
  if (w) {
    w.retiring = true;
    w.spares = [];
    await w.launched.browser.close().catch(() => undefined);
    await rm(w.launched.profile, { recursive: true, force: true });
  }
  conversions = 0;
  restarts = {};
}
