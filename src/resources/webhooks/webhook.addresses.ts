import ipaddr from 'ipaddr.js';

/*
 * Which addresses are on the public internet, after IANA's special-purpose address registries
 * (IPv4 and IPv6) and its IPv6 address space registry. ipaddr.js names most special ranges; the
 * registries' ranges that are not globally reachable and that it does not name are listed here.
 */

const UNNAMED_IPV4_RANGES: Readonly<Record<string, readonly string[]>> = {
  benchmarking: ['198.18.0.0/15'],
};

const UNNAMED_IPV6_RANGES: Readonly<Record<string, readonly string[]>> = {
  // Where in such an address the IPv4 one sits depends on the prefix length the local translator
  // uses (RFC 6052, section 2.2), so its embedded address cannot be read: the range is refused whole.
  nat64LocalUse: ['64:ff9b:1::/48'],
  discard: ['100::/64'],
  dummy: ['100:0:0:1::/64'],
  benchmarking: ['2001:2::/48'],
  orchid: ['2001:10::/28'],
  // Teredo, benchmarking and ORCHID are named before it. Its globally reachable assignments
  // (anycast relays, AS112, ORCHIDv2 and drone identifiers) are no webhook receivers either.
  ietfProtocolAssignments: ['2001::/23'],
  documentation: ['3fff::/20'],
  srv6: ['5f00::/16'],
  ipv4Compatible: ['::/96'],
  siteLocal: ['fec0::/10'],
};

function parsedRanges<Address>(ranges: Readonly<Record<string, readonly string[]>>, parseCIDR: (cidr: string) => [Address, number]): Record<string, [Address, number][]> {
  return Object.fromEntries(Object.entries(ranges).map(([name, cidrs]) => [name, cidrs.map(parseCIDR)]));
}
const unnamedIPv4 = parsedRanges(UNNAMED_IPV4_RANGES, (cidr) => ipaddr.IPv4.parseCIDR(cidr));
const unnamedIPv6 = parsedRanges(UNNAMED_IPV6_RANGES, (cidr) => ipaddr.IPv6.parseCIDR(cidr));

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

function ipv4From(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv4 addresses an IPv6 address leads to through a translator or relay: a stateless
 * translator's (RFC 6145), NAT64's well-known prefix (RFC 6052), a 6to4 relay's (RFC 3056), and a
 * Teredo server and client, the client's carried inverted (RFC 4380).
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const parts = address.parts;
  switch (address.range()) {
    case 'rfc6145':
    case 'rfc6052':
      return [ipv4From(parts[6], parts[7])];
    case '6to4':
      return [ipv4From(parts[1], parts[2])];
    case 'teredo':
      return [ipv4From(parts[2], parts[3]), ipv4From(~parts[6] & 0xffff, ~parts[7] & 0xffff)];
    default:
      return [];
  }
}

/** The name of the special-purpose range `address` is in: ipaddr.js's, else this module's, else `unicast`. */
function rangeOf(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  const named = address.range();
  if (named !== 'unicast') return named;
  return address.kind() === 'ipv4' ? ipaddr.subnetMatch(address as ipaddr.IPv4, unnamedIPv4) : ipaddr.subnetMatch(address as ipaddr.IPv6, unnamedIPv6);
}

/** The special-purpose range `address` is in, unless it is globally reachable. */
function refusedRange(address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  const range = rangeOf(address);
  // NAT64's well-known prefix is globally reachable: what it reaches is its embedded address.
  if (range === 'rfc6052') return undefined;
  if (range !== 'unicast') return range;
  if (address.kind() === 'ipv6' && !(address as ipaddr.IPv6).match(GLOBAL_UNICAST)) return 'outside global unicast';
  return undefined;
}

/**
 * Why `text` (an IP address) is not on the public internet, or undefined when it is. An
 * IPv4-mapped address is judged as the IPv4 address it is; one that a translator or relay turns
 * into an IPv4 address is refused when that address is, and otherwise as its own range is.
 */
export function notPublicReason(text: string): string | undefined {
  if (!ipaddr.isValid(text)) return `${text} is not an address that can be classified`;
  const address = ipaddr.process(text);
  if (address.kind() === 'ipv6') {
    for (const ipv4 of embeddedIPv4(address as ipaddr.IPv6)) {
      const range = refusedRange(ipv4);
      if (range) return `${text} embeds ${ipv4.toString()}, an address that is not globally reachable (${range})`;
    }
  }
  const range = refusedRange(address);
  return range && `${text} is an address that is not globally reachable (${range})`;
}
