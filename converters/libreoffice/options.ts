import type { BridgeRequest } from './instance.js';

/** The office pool's settings, requests and status, as callers see them. */

export interface OfficePoolOptions {
  /** Instances (default min(2, CPU count)). */
  size?: number;
  /** Conversions before an instance is replaced (default 50). */
  maxConversions?: number;
  /** Resident memory of an instance's process group past which it is replaced (default 1 GiB). */
  maxRssBytes?: number;
  /** Python that can import uno (default: FILECONV_UNO_PYTHON, else found). */
  python?: string;
  /** The soffice binary (default: found on PATH). */
  soffice?: string;
  /** How long an instance may take to accept connections (default 60 s). */
  startTimeoutMs?: number;
}

export interface PoolConversion extends BridgeRequest {
  /** Wall-clock limit of the conversion itself; also bounds the wait for a free instance. */
  timeoutMs: number;
  signal: AbortSignal;
  /** A line for the request's timeline. */
  log?: (message: string) => void;
  /**
   * The input is password-protected: LibreOffice dropping the connection while it reads it is
   * the password case (ENCRYPTED_DOCUMENT), not an engine crash worth a second try.
   */
  encrypted?: boolean;
}

export interface OfficePoolStatus {
  /** undefined until the pool was first asked for. */
  available?: boolean;
  reason?: string;
  size: number;
  maxConversions: number;
  maxRssBytes: number;
  python?: string;
  conversions: number;
  restarts: Record<string, number>;
  instances: { pid?: number; dir?: string; conversions: number; rssBytes: number; busy: boolean }[];
}
