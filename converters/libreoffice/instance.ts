import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { copyFile, readdir, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fontconfigEnv, OUTLINE_EMOJI } from '../../src/fonts/fontconfig.js';
import { asEngineUser, engineConfinement, engineReachableTmpdir } from '../../src/run/confine.js';
import { handToEngine } from '../../src/run/engine-files.js';
import { sandboxedCommand } from '../../src/run/sandbox.js';
import type { DocInfo } from '../_pdfa.js';
import { createLockedProfile } from '../office/profile.js';
import { linkPipeWhenReady, sweepDeadPipeLinks } from './pipe-link.js';
import { groupMembers, groupRssBytes, isAlive, killGroup } from './proc.js';

/** What the bridge is asked to do: one load-and-store. */
export interface BridgeRequest {
  input: string;
  output: string;
  filter: string;
  filterOptions?: string;
  inputFilter?: string;
  inputFilterOptions?: string;
  /** Typed export settings (PDF PageRange, Quality, ...), passed as the filter's FilterData. */
  filterData?: Record<string, string | number | boolean>;
  /** A PDF imported into Writer: one body paragraph per page, each page's frames anchored to it. */
  pdfPages?: boolean;
  /** The password of a protected document: it goes to the bridge on its stdin, nowhere else. */
  password?: string;
  /** Set on every page style before export (page-setup.ts). */
  pageSetup?: PageSetup;
  /** Document information set on the document before export (title, author, subject, keywords). */
  docInfo?: DocInfo;
}

/** Page style settings, lengths in 1/100 mm (the unit of LibreOffice's style properties). */
export interface PageSetup {
  width?: number;
  height?: number;
  /** Wider than tall; undefined keeps each style's own orientation. */
  landscape?: boolean;
  /** Top, right, bottom, left. */
  margins?: [number, number, number, number];
  /** Spreadsheets: each sheet scaled to one page wide. */
  fitWidth?: boolean;
  /** No page header (Calc prints the sheet's name, for a CSV the uploaded file's, by default). */
  noHeader?: boolean;
}

export type BridgeReply =
  | { ok: true }
  | {
      ok: false;
      kind: 'load' | 'password' | 'store' | 'disconnected' | 'request' | 'timeout' | 'cancelled';
      error: string;
    };

export interface InstanceSettings {
  soffice: string;
  python: string;
  bridgeScript: string;
  startTimeoutMs: number;
}

const TAIL_CHARS = 2000;

/**
 * One headless LibreOffice with its own profile and UNO pipe, and the Python bridge driving it.
 * Both run in process groups of their own so a kill takes soffice.bin and every helper with it.
 * Neither keeps the Node event loop alive: a CLI run ends when its work does, and the exit hook
 * of the pool kills what is left.
 */
export class OfficeInstance {
  conversions = 0;
  private dead = false;
  private pending?: (reply: BridgeReply) => void;
  private stderrTail = '';

  private constructor(
    readonly dir: string,
    private readonly office: ChildProcess,
    private readonly bridge: ChildProcess,
    /** The office runs in its own mount namespace (src/run/confine.ts). */
    private readonly confined: boolean,
  ) {}

  /** Where the bridge reaches a confined office's pipe, outside the office's namespace. */
  pipeLink?: string;

  /**
   * The folder a confined office sees the current conversion's files in: its namespace holds
   * this instance's folder and nothing else, so each document is copied in, converted there, its
   * output taken out, and the folder emptied before the next one.
   */
  private get exchange(): string | undefined {
    return this.confined ? join(this.dir, 'job') : undefined;
  }

  /** Process group of soffice (the launcher's pid). */
  get pgid(): number {
    return this.office.pid ?? 0;
  }

  /** The soffice.bin process doing the work, if it is running. */
  get officePid(): number | undefined {
    const members = groupMembers(this.pgid);
    return (members.find((p) => p.comm === 'soffice.bin') ?? members[0])?.pid;
  }

  get alive(): boolean {
    if (this.dead || this.bridge.exitCode !== null || this.bridge.signalCode !== null) return false;
    const pid = this.officePid;
    return pid !== undefined && isAlive(pid);
  }

  /** Resident memory of the office process group, in bytes. */
  rssBytes(): number {
    return groupRssBytes(this.pgid);
  }

  static async start(settings: InstanceSettings): Promise<OfficeInstance> {
    const dir = mkdtempSync(join(engineReachableTmpdir(), 'fileconv-office-'));
    mkdirSync(join(dir, 'tmp'));
    mkdirSync(join(dir, 'job'));
    const profile = await createLockedProfile(join(dir, 'profile'));
    const pipe = `fileconv_${process.pid}_${randomBytes(6).toString('hex')}`;
    const confined = engineConfinement().mountNamespace;
    await handToEngine([dir], true);
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      TMPDIR: join(dir, 'tmp'),
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      // LibreOffice 7 draws colour glyphs on screen but leaves them out of PDF: outline emoji.
      ...fontconfigEnv(OUTLINE_EMOJI),
    };
    // Same OS isolation as engines run through runProcess (no network, own mount namespace and
    // user where permitted); no address-space or CPU cap, as LibreOffice reserves huge virtual
    // memory and lives long. Its /tmp is the instance's tmp folder, where the UNO pipe appears.
    const command = sandboxedCommand(
      settings.soffice,
      [
        '--headless',
        '--invisible',
        '--nologo',
        '--nodefault',
        '--norestore',
        '--nolockcheck',
        `-env:UserInstallation=${profile}`,
        `--accept=pipe,name=${pipe};urp;StarOffice.ComponentContext`,
      ],
      0,
      { addressSpaceBytes: null, cpuSeconds: null },
      { writable: [dir], tmp: join(dir, 'tmp') },
    );
    const office = spawn(command.file, command.args, { cwd: dir, env, detached: true, stdio: 'ignore' });
    office.on('error', () => {}); // reported through the bridge's connect failure
    office.unref();
    // The bridge runs as the same user as the office: LibreOffice names its pipe after the user.
    const [bridgeFile, ...bridgeArgs] = asEngineUser([
      settings.python,
      settings.bridgeScript,
      '--pipe',
      pipe,
      '--pgid',
      String(office.pid ?? 0),
      '--connect-timeout',
      String(settings.startTimeoutMs / 1000),
      '--home',
      dir,
    ]);
    const bridge = spawn(bridgeFile as string, bridgeArgs, {
      cwd: dir,
      env: { ...env, PYTHONUNBUFFERED: '1' },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    bridge.unref();
    for (const stream of [bridge.stdin, bridge.stdout, bridge.stderr]) {
      (stream as unknown as { unref?: () => void } | null)?.unref?.();
    }
    const instance = new OfficeInstance(dir, office, bridge, confined);
    if (confined) sweepDeadPipeLinks();
    const linking = confined
      ? linkPipeWhenReady(join(dir, 'tmp'), pipe, settings.startTimeoutMs, (link) => {
          instance.pipeLink = link;
        })
      : undefined;
    try {
      await instance.waitReady(settings.startTimeoutMs);
    } catch (e) {
      instance.kill();
      throw e;
    } finally {
      linking?.stop();
    }
    return instance;
  }

  private waitReady(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const lines = createInterface({ input: this.bridge.stdout as NonNullable<ChildProcess['stdout']> });
      let ready = false;
      const fail = (why: string) => {
        clearTimeout(timer);
        if (!ready) reject(new Error(`LibreOffice did not start: ${why}${this.tail()}`));
      };
      const timer = setTimeout(
        () => fail(`no answer within ${Math.round(timeoutMs / 1000)} s`),
        timeoutMs + 2000,
      );
      this.bridge.stderr?.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-TAIL_CHARS);
      });
      this.bridge.on('error', (e) => fail(e.message));
      this.bridge.on('exit', (code, signal) => {
        this.dead = true;
        fail(`the bridge exited with ${signal ?? `code ${code}`}`);
        this.settle({ ok: false, kind: 'disconnected', error: `LibreOffice went away${this.tail()}` });
      });
      lines.on('line', (line) => {
        let message: { ready?: boolean; error?: string; id?: string } & Partial<BridgeReply>;
        try {
          message = JSON.parse(line);
        } catch {
          return; // not ours: a library printing to stdout
        }
        if (!ready && message.ready !== undefined) {
          if (message.ready) {
            ready = true;
            clearTimeout(timer);
            resolve();
          } else fail(message.error ?? 'unknown reason');
          return;
        }
        if (message.id !== undefined) this.settle(message as BridgeReply);
      });
    });
  }

  private tail(): string {
    const text = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    return text ? ` (${text.slice(0, 500)})` : '';
  }

  private settle(reply: BridgeReply): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.(reply);
  }

  /**
   * One conversion. Past `timeoutMs`, or when `signal` aborts, the instance is killed (a UNO call
   * cannot be interrupted) and the reply says why; the pool then replaces it.
   */
  async convert(request: BridgeRequest, timeoutMs: number, signal: AbortSignal): Promise<BridgeReply> {
    const exchange = this.exchange;
    if (!exchange) return this.call(request, timeoutMs, signal);
    const input = join(exchange, `input${extname(request.input)}`);
    const output = join(exchange, `output${extname(request.output)}`);
    try {
      await copyFile(request.input, input);
      await handToEngine([input]);
      const reply = await this.call({ ...request, input, output }, timeoutMs, signal);
      if (reply.ok) await copyFile(output, request.output);
      return reply;
    } finally {
      for (const entry of await readdir(exchange).catch(() => []))
        await rm(join(exchange, entry), { recursive: true, force: true });
    }
  }

  private call(request: BridgeRequest, timeoutMs: number, signal: AbortSignal): Promise<BridgeReply> {
    if (signal.aborted) return Promise.resolve({ ok: false, kind: 'cancelled', error: 'cancelled' });
    if (!this.alive)
      return Promise.resolve({ ok: false, kind: 'disconnected', error: 'LibreOffice is not running' });
    this.conversions += 1;
    const id = `${this.conversions}`;
    return new Promise<BridgeReply>((resolve) => {
      const finish = (reply: BridgeReply) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.pending = undefined;
        resolve(reply);
      };
      const timer = setTimeout(() => {
        this.kill();
        finish({ ok: false, kind: 'timeout', error: `took longer than ${Math.round(timeoutMs / 1000)} s` });
      }, timeoutMs);
      const onAbort = () => {
        this.kill();
        finish({ ok: false, kind: 'cancelled', error: 'cancelled' });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending = finish;
      this.bridge.stdin?.write(`${JSON.stringify({ id, ...request })}\n`);
    });
  }

  /** Kills both process groups and removes the profile; safe to call more than once, and from an exit hook. */
  kill(): void {
    this.dead = true;
    killGroup(this.office.pid);
    killGroup(this.bridge.pid);
    rmSync(this.dir, { recursive: true, force: true });
    if (this.pipeLink) rmSync(this.pipeLink, { force: true });
  }
}
