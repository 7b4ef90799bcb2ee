import { accessSync, constants, statSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { fontconfigEnv } from '../../src/fonts/fontconfig.js';
import { findBinary } from '../../src/run/process.js';
import { sandboxedCommand } from '../../src/run/sandbox.js';

/** The browser binaries Debian and other distributions install. */
export const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

/** The overflow user: owns nothing, so a browser escaping its own sandbox still reads nothing. */
const UNPRIVILEGED = { uid: 65534, gid: 65534, name: 'nobody' };

const START_TIMEOUT_MS = 30_000;

// Switches for a browser that never goes online by itself and keeps no state worth having.
const BASE_ARGS = [
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
  '--disable-default-apps',
  '--disable-breakpad',
  '--disable-domain-reliability',
  '--no-pings',
  '--mute-audio',
  '--hide-scrollbars',
  '--deny-permission-prompts',
  // window.open and target=_blank make no new pages.
  '--block-new-web-contents',
  // Prepared pages wait in the background: a backgrounded renderer runs at a lower process
  // priority with throttled timers, and on a busy machine its first conversion then crawls.
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
  '--disable-background-timer-throttling',
  // A page navigated away from (the warm-up page) is dropped, not kept for a back button.
  '--disable-back-forward-cache',
  '--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication',
  // A page that allocates without end dies at this heap size instead of taking the machine's memory.
  '--js-flags=--max-old-space-size=512',
  '--remote-debugging-pipe',
  '--no-startup-window',
];

export interface LaunchedBrowser {
  browser: Browser;
  /** The fresh, empty profile folder; removed when the browser is closed. */
  profile: string;
  /** How the browser runs, for doctor and the timeline. */
  mode: string;
}

/** Whether every folder above `dir` lets others through (the unprivileged user must reach its profile). */
function traversableByOthers(dir: string): boolean {
  try {
    accessSync(dir, constants.X_OK);
  } catch {
    return false;
  }
  const parts = dir.split('/').filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const path = `/${parts.slice(0, i).join('/')}`;
    try {
      if ((statSync(path).mode & 0o001) === 0) return false;
    } catch {
      return false;
    }
  }
  return true;
}

async function freshProfile(owner: { uid: number; gid: number } | undefined): Promise<string> {
  const base = !owner || traversableByOthers(tmpdir()) ? tmpdir() : '/tmp';
  const profile = await mkdtemp(join(base, 'fileconv-chromium-'));
  if (owner) await chown(profile, owner.uid, owner.gid);
  return profile;
}

/**
 * As root, the browser drops to the unprivileged user with setpriv and keeps Chromium's own
 * sandbox on (user namespaces); where that sandbox cannot start it runs without it, still as that
 * user, in the engine sandbox's empty network namespace.
 */
function dropPrivileges(): string[] | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const setpriv = findBinary(['setpriv']);
  if (!setpriv) return undefined;
  return [
    setpriv,
    `--reuid=${UNPRIVILEGED.uid}`,
    `--regid=${UNPRIVILEGED.gid}`,
    '--clear-groups',
    '--inh-caps=-all',
    '--',
  ];
}

async function launchOnce(chromiumPath: string, sandbox: boolean): Promise<LaunchedBrowser> {
  const drop = dropPrivileges();
  const profile = await freshProfile(drop ? UNPRIVILEGED : undefined);
  const chromeArgs = [...BASE_ARGS, `--user-data-dir=${profile}`, ...(sandbox ? [] : ['--no-sandbox'])];
  const inner = drop ? [...drop, chromiumPath, ...chromeArgs] : [chromiumPath, ...chromeArgs];
  // No address-space cap (Chromium reserves terabytes of virtual memory), no CPU cap (the
  // browser lives across conversions; each conversion has its own time limit instead) and no
  // file-size cap (it would kill the browser over a large shared-memory segment; its results come
  // back over the pipe and are checked against the output cap before they are written).
  const command = sandboxedCommand(inner[0]!, inner.slice(1), START_TIMEOUT_MS, {
    addressSpaceBytes: null,
    cpuSeconds: null,
    fileSizeBytes: null,
  });
  try {
    // Loaded on first use: Playwright takes about a second to import, which every command would pay.
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: command.file,
      args: command.args,
      ignoreDefaultArgs: true,
      // Playwright's own scratch folder goes with the profile, not loose in the temp folder.
      artifactsDir: join(profile, 'playwright'),
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: profile,
        TMPDIR: profile,
        LANG: 'C.UTF-8',
        // The same font replacements as every other engine (Calibri to Carlito, Segoe UI to Noto...).
        ...fontconfigEnv(),
      },
      timeout: START_TIMEOUT_MS,
      // The server and the CLI decide what a signal means; the browser goes with the process.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const user = drop ? `as ${UNPRIVILEGED.name}` : 'as the current user';
    return {
      browser,
      profile,
      mode: `${user}, ${sandbox ? "Chromium's sandbox on" : 'no Chromium sandbox'}`,
    };
  } catch (e) {
    await rm(profile, { recursive: true, force: true });
    throw e;
  }
}

/** Starts a headless browser: with Chromium's sandbox when it can start here, without it otherwise. */
export async function launchBrowser(): Promise<LaunchedBrowser & { sandboxError?: string }> {
  const chromiumPath = findBinary(CHROMIUM_NAMES);
  if (!chromiumPath) throw new Error(`none of ${CHROMIUM_NAMES.join(', ')} found on PATH`);
  try {
    return await launchOnce(chromiumPath, true);
  } catch (e) {
    const sandboxError = (e as Error).message.split('\n').slice(0, 3).join(' ').slice(0, 300);
    return { ...(await launchOnce(chromiumPath, false)), sandboxError };
  }
}
