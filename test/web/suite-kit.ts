import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { closeBrowserPool } from '../../converters/chromium/pool.js';
import { closeOfficePool } from '../../converters/libreoffice/pool.js';
import { type Setup, type SetupName, startSetup, storeBlind } from '../support/setups.js';
import { launchBrowser, pageHarness, screenshotPath } from './browser.js';
import { type RunningServer, startServer } from './server.js';

/** What every web suite drives: a setup's stores, `fileconv serve` on them, a browser, a scratch folder. */
export interface WebSuite {
  readonly setup: Setup;
  readonly server: RunningServer;
  readonly browser: Browser;
  readonly scratch: string;
  /** A screenshot's path; each setup keeps its own, so two files never write over each other's. */
  shot(name: string): string;
  harness: ReturnType<typeof pageHarness>;
  /** `it` on SQLite + disk, skipped elsewhere: for what never reaches the stores. */
  itStoreBlind: ReturnType<typeof storeBlind>;
}

/**
 * Starts the suite's setup, server and browser before its tests (in the enclosing describe, before
 * the suite's own beforeAll) and stops them after, with the engine pools the page's conversions
 * started.
 */
export function webSuite(setupName: SetupName, scratchPrefix: string): WebSuite {
  let setup: Setup | undefined;
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  let scratch: string | undefined;
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the web suite's ${what} is not started yet`);
    return value;
  };
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), scratchPrefix));
    setup = await startSetup(setupName);
    server = await startServer(join(scratch, 'data'), await setup.stores());
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await closeOfficePool();
    await closeBrowserPool();
    await setup?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });
  return {
    get setup() {
      return ready(setup, 'setup');
    },
    get server() {
      return ready(server, 'server');
    },
    get browser() {
      return ready(browser, 'browser');
    },
    get scratch() {
      return ready(scratch, 'scratch folder');
    },
    shot: (name) => screenshotPath(setupName === 'sqlite-disk' ? name : `${name}-${setupName}`),
    harness: pageHarness(
      () => ready(browser, 'browser'),
      () => ready(server, 'server').url,
    ),
    itStoreBlind: storeBlind(setupName),
  };
}
