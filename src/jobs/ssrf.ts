import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { LookupFunction } from 'node:net';

/**
 * The SSRF guard: a webhook URL is chosen by an account, so the gateway must not be turned into a proxy to
 * its own network. Destinations on loopback, private, link-local (cloud metadata), CGNAT, unspecified,
 * multicast or reserved addresses are refused, unless private networks are explicitly allowed.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, incl. 169.254.169.254 metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local, incl. fd00:ec2::254 metadata
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** The 8 groups of an IPv6 address (with an embedded dotted IPv4 tail), or undefined when malformed. */
const ipv6Groups = (ip: string): number[] | undefined => {
  let s = ip.toLowerCase().split('%')[0] ?? '';
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4?.[1]) {
    const b = v4[1].split('.').map(Number);
    s = `${s.slice(0, -v4[1].length)}${(((b[0] ?? 0) << 8) | (b[1] ?? 0)).toString(16)}:${(((b[2] ?? 0) << 8) | (b[3] ?? 0)).toString(16)}`;
  }
  const [head = '', tail] = s.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? 0 : 8 - h.length - t.length;
  const groups = [...h, ...Array<string>(fill).fill('0'), ...t].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined;
};

/** An IPv4 address carried inside an IPv6 one (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96). */
const embeddedIpv4 = (g: number[]): string | undefined => {
  const zeros5 = g.slice(0, 5).every((x) => x === 0);
  const mapped = zeros5 && (g[5] === 0xffff || g[5] === 0);
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
  if (!mapped && !nat64) return undefined;
  const hi = g[6] ?? 0;
  const lo = g[7] ?? 0;
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
};

export const isForbiddenAddress = (ip: string): boolean => {
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family !== 6) return true;
  const groups = ipv6Groups(ip);
  if (!groups) return true;
  const v4 = embeddedIpv4(groups);
  // ::/96 with a v4 tail of 0.0.0.0 / 0.0.0.1 is :: and ::1, both blocked below as IPv6 too.
  if (v4 !== undefined && blocked.check(v4, 'ipv4')) return true;
  return blocked.check(ip.split('%')[0] ?? ip, 'ipv6');
};

export type Resolve = (host: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/** The URL's host without IPv6 brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Checks a webhook URL when it is created or changed: http(s) only, and (unless private networks are allowed)
 * every address its host resolves to must be public. Returns the reason for refusing, or undefined.
 */
export const refuseWebhookUrl = async (
  raw: string,
  opts: { allowPrivate: boolean; resolve?: Resolve },
): Promise<string | undefined> => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'the URL is not valid';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'only http and https URLs are allowed';
  if (opts.allowPrivate) return undefined;
  const host = hostOf(url);
  if (isIP(host) !== 0) return isForbiddenAddress(host) ? `${host} is not a public address` : undefined;
  let addresses: LookupAddress[];
  try {
    addresses = await (opts.resolve ?? systemResolve)(host);
  } catch {
    return `${host} does not resolve`;
  }
  if (addresses.length === 0) return `${host} does not resolve`;
  const bad = addresses.find((a) => isForbiddenAddress(a.address));
  return bad ? `${host} resolves to ${bad.address}, which is not a public address` : undefined;
};

/**
 * A DNS lookup for the delivery's HTTP agent that refuses forbidden addresses. The socket connects to the very
 * address checked here, so a DNS answer that changes between check and connect (rebinding) cannot slip through.
 */
export const guardedLookup =
  (allowPrivate: boolean): LookupFunction =>
  (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const bad = allowPrivate ? undefined : addresses.find((a) => isForbiddenAddress(a.address));
      if (bad || addresses.length === 0) {
        const e = Object.assign(new Error(`refused: ${hostname} resolves to a non-public address`), {
          code: 'EWEBHOOKREFUSED',
        });
        return callback(e, '', 4);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
