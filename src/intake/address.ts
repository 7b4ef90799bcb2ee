import ipaddr from 'ipaddr.js';

/**
 * Which addresses a fetched URL may reach. Only public unicast space passes; everything a server
 * could use to reach itself, its network or its cloud metadata endpoint is refused.
 */
export interface AddressVerdict {
  /** True when the address is public unicast. */
  public: boolean;
  /** The ipaddr.js range name (or our own name) that decided, for error messages and logs. */
  range: string;
  /** The address in canonical text form (IPv4-mapped forms unwrapped to IPv4). */
  address: string;
}

/** Global unicast IPv6 space (RFC 4291 2000::/3); anything outside it is not a public server. */
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parse('2000::');

/** True when `text` is an IP literal in any spelling ipaddr.js accepts (incl. 0x7f.1, 2130706433). */
export function isIpLiteral(text: string): boolean {
  return ipaddr.isValid(stripBrackets(text));
}

export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Classifies one IP address (text, any spelling ipaddr.js parses). Unparseable text is refused. */
export function classifyAddress(text: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(stripBrackets(text));
  } catch {
    return { public: false, range: 'invalid', address: text };
  }
  return parsed.kind() === 'ipv4' ? classifyV4(parsed as ipaddr.IPv4) : classifyV6(parsed as ipaddr.IPv6);
}

function classifyV4(addr: ipaddr.IPv4): AddressVerdict {
  const range = addr.range();
  return { public: range === 'unicast', range, address: addr.toString() };
}

function classifyV6(addr: ipaddr.IPv6): AddressVerdict {
  const range = addr.range();
  // Forms that carry an IPv4 address in the low 32 bits and deliver to it: judge the IPv4 inside.
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (RFC 6145 translated), 64:ff9b::a.b.c.d (NAT64).
  if (range === 'ipv4Mapped' || range === 'rfc6145' || isWellKnownNat64(addr)) {
    const inner = classifyV4(embeddedV4(addr));
    return { ...inner, range: inner.public ? inner.range : `${range}:${inner.range}` };
  }
  // Everything else special (6to4, Teredo, local-use NAT64, ORCHID, documentation, the whole ::/8
  // with its deprecated IPv4-compatible form) is refused outright, and so is all space outside
  // 2000::/3, which holds no public servers today.
  if (range !== 'unicast') return { public: false, range, address: addr.toString() };
  if (!addr.match(IPV6_GLOBAL_UNICAST, 3))
    return { public: false, range: 'notGlobal', address: addr.toString() };
  return { public: true, range, address: addr.toString() };
}

function isWellKnownNat64(addr: ipaddr.IPv6): boolean {
  return addr.match(ipaddr.IPv6.parse('64:ff9b::'), 96);
}

function embeddedV4(addr: ipaddr.IPv6): ipaddr.IPv4 {
  const p = addr.parts;
  const hi = p[6] ?? 0;
  const lo = p[7] ?? 0;
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/**
 * Names that mean "this machine" without any DNS answer (RFC 6761): refused before resolving, so
 * a resolver that would answer them from /etc/hosts is never asked.
 */
export function isLocalName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return (
    name === 'localhost' || name.endsWith('.localhost') || name === '' || name === 'localhost.localdomain'
  );
}
