// The server-side request forgery guard: an endpoint may not be on a loopback,
// link-local, private, unique-local, unspecified (or multicast, reserved, shared
// carrier-grade, documentation) address, IPv4 or IPv6, IPv4-mapped IPv6 and the IPv6
// transition prefixes that carry an IPv4 address (6to4, Teredo, NAT64) included, nor on an
// address of this machine's own interfaces, unless the install
// allows it (BILLRUN_WEBHOOKS_ALLOW_PRIVATE=1). Checked when an endpoint is made or its
// URL changed, before every delivery (DNS may have changed), and again on the address the
// connection actually uses (guardedLookup), so a name that resolves to a public address
// for the check and a private one for the connection is refused too.
import dns from 'node:dns';
import net from 'node:net';
import os from 'node:os';
import { embeddedIPv4 } from '../ipAddress.ts';

const V4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8], // unspecified, "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const V6_BLOCKED: [string, number][] = [
  ['::', 96], // unspecified, loopback (::1), IPv4-compatible
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['100::', 64], // discard-only
  // Prefixes that carry or reach an IPv4 address by another road (an attack used each):
  ['::ffff:0:0:0', 96], // IPv4-translated
  ['64:ff9b:1::', 48], // local-use NAT64
  ['2001::', 32], // Teredo
  ['2002::', 16], // 6to4
  ['2001:db8::', 32], // documentation
];

const blocked = new net.BlockList();
for (const [a, p] of V4_BLOCKED) blocked.addSubnet(a, p, 'ipv4');
for (const [a, p] of V6_BLOCKED) blocked.addSubnet(a, p, 'ipv6');

/**
 * The addresses of this machine's own interfaces: a webhook to one reached the service
 * itself (and anything else listening on it) on a public or LAN address, and get-attempts
 * showed the answer. Read at every check: interfaces come and go.
 */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) own.add(a.address.toLowerCase().split('%')[0]!);
  return own;
}

/** Whether an IP address is one an endpoint may not be on. */
export function isForbiddenAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family !== 0) {
    const own = ownAddresses();
    const v4 = family === 6 ? embeddedIPv4(address) : undefined;
    if (own.has(address.toLowerCase().split('%')[0]!) || (v4 !== undefined && own.has(v4))) return true;
  }
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIPv4(address);
    if (v4 !== undefined) return blocked.check(v4, 'ipv4');
    return blocked.check(address.split('%')[0]!, 'ipv6');
  }
  return true;
}

export class ForbiddenAddress extends Error {}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Refuses a URL whose host is, or resolves to, a forbidden address (unless allowed).
 * Answers the reason, or null when the URL may be called.
 */
export async function refusedAddress(url: URL, allowPrivate: boolean): Promise<string | null> {
  if (allowPrivate) return null;
  const host = hostOf(url);
  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      return `the host ${host} does not resolve`;
    }
  }
  const bad = addresses.find(isForbiddenAddress);
  return bad === undefined ? null : `the host ${host} is on a loopback, link-local, private or reserved address (${bad})`;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A dns.lookup for outgoing connections that refuses forbidden addresses (undici's connect.lookup). */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as dns.LookupAddress[];
      const bad = allowPrivate ? undefined : list.find((a) => isForbiddenAddress(a.address));
      if (bad) return callback(new ForbiddenAddress(`${hostname} resolves to a forbidden address (${bad.address})`), []);
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
