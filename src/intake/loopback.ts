import ipaddr from 'ipaddr.js';
import type { PrivateAllowance, PrivateTarget } from './guard.js';

/** The environment variable that lets black-box suites fetch from their own loopback origin. */
export const TEST_LOOPBACK_ENV = 'FILECONV_TEST_ALLOW_LOOPBACK_SOURCES';

/**
 * True for exactly 127.0.0.1 and ::1 in any spelling ipaddr.js parses (127.1, 0x7f.0.0.1,
 * 0:0:0:0:0:0:0:1). The rest of 127/8, IPv4-mapped ::ffff:127.0.0.1 and the name `localhost` stay
 * blocked: the setting opens the two addresses a test origin listens on, nothing a DNS answer or
 * a host-file entry could widen.
 */
export function isTestLoopback(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.startsWith('[') ? address.slice(1, -1) : address);
  } catch {
    return false;
  }
  return parsed.kind() === 'ipv4'
    ? parsed.toString() === '127.0.0.1'
    : parsed.toNormalizedString() === '0:0:0:0:0:0:0:1';
}

const allowTestLoopback = (target: PrivateTarget): boolean => isTestLoopback(target.address);

/**
 * The private-address allowance the server's URL sources get from the environment: `false`
 * (public addresses only) unless FILECONV_TEST_ALLOW_LOOPBACK_SOURCES=1, which lets 127.0.0.1 and
 * ::1 through and nothing else. Environment only, never a flag, so it cannot end up in a unit file
 * or a copied command line by accident; the caller announces it at start.
 */
export function loopbackAllowanceFromEnv(env: NodeJS.ProcessEnv = process.env): PrivateAllowance {
  return env[TEST_LOOPBACK_ENV]?.trim() === '1' ? allowTestLoopback : false;
}

/** The start-up warning printed when the setting is on. */
export const TEST_LOOPBACK_WARNING = `WARNING: ${TEST_LOOPBACK_ENV}=1 is set: source URLs may reach 127.0.0.1 and ::1 (this machine). This setting is for test suites only; never run a public server with it.`;
