import dns from 'node:dns';
import net from 'node:net';
import { notPublicReason } from './webhook.addresses.js';

/**
 * Which addresses webhooks may be sent to: those on the public internet (`notPublicReason`), and
 * those the operator allows (`CMS_WEBHOOKS_ALLOW_ADDRESSES`). A request to any other would let
 * whoever configures a webhook reach the service's own machine or network (SSRF).
 */
export interface TargetPolicy {
  /** Why `address` may not be a target, or undefined when it may. */
  refusal(address: string): string | undefined;
}

export function targetPolicy(allowed: readonly string[]): TargetPolicy {
  const allow = new net.BlockList();
  for (const entry of allowed) {
    const [address, prefix] = entry.split('/');
    const family = net.isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) allow.addAddress(address, family);
    else allow.addSubnet(address, Number(prefix), family);
  }
  return {
    refusal(address) {
      if (!net.isIP(address)) return `${address} is not an IP address`;
      if (allow.check(address, net.isIP(address) === 4 ? 'ipv4' : 'ipv6')) return undefined;
      return notPublicReason(address);
    },
  };
}

/** A URL's host, without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Every address `host` resolves to (itself when it is one), within `timeoutMs`. */
export async function resolveHost(host: string, timeoutMs: number): Promise<string[]> {
  if (net.isIP(host)) return [host];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${host} did not resolve within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const found = await Promise.race([dns.promises.lookup(host, { all: true, verbatim: true }), timeout]);
    return found.map((entry) => entry.address);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Why a webhook may not be sent to `url`, or undefined: the scheme must be http or https, and
 * every address the host resolves to must be one the policy accepts (one refused address refuses
 * the host, since a connection could pick it).
 */
export async function targetRefusal(url: string, policy: TargetPolicy, timeoutMs: number): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'the scheme must be http or https';
  if (parsed.username || parsed.password) return 'the URL may not carry credentials';
  let addresses: string[];
  try {
    addresses = await resolveHost(hostOf(parsed), timeoutMs);
  } catch (error) {
    return `the host does not resolve: ${(error as Error).message}`;
  }
  if (!addresses.length) return 'the host does not resolve';
  for (const address of addresses) {
    const refusal = policy.refusal(address);
    if (refusal) return refusal;
  }
  return undefined;
}

/**
 * A `lookup` for `http.request` that resolves as the system does, then refuses the host when any
 * of its addresses is refused: the connection goes to an address checked at that moment, so a
 * name that resolved to a public address at creation and to a private one now (DNS rebinding)
 * is refused now.
 */
export function checkedLookup(policy: TargetPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (error, found) => {
      const done = callback as unknown as (error: Error | null, address: string | dns.LookupAddress[], family?: number) => void;
      if (error) return done(error, '', 0);
      const addresses = found as dns.LookupAddress[];
      for (const { address } of addresses) {
        const refusal = policy.refusal(address);
        if (refusal) return done(new RefusedTarget(refusal), '', 0);
      }
      if (!addresses.length) return done(new RefusedTarget(`${hostname} does not resolve`), '', 0);
      if ((options as dns.LookupOptions).all) return done(null, addresses);
      return done(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** A target the policy refuses, found at the moment of connecting. */
export class RefusedTarget extends Error {}
