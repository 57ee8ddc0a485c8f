import { isIP } from 'node:net';

/**
 * Which IP addresses a webhook may be sent to: an **allowlist**. An address is admitted only when it is global
 * unicast (IPv4 1.0.0.0–223.255.255.255, IPv6 2000::/3) and lies in none of the IANA special-purpose ranges
 * (the IPv4 and IPv6 Special-Purpose Address Registries, RFC 6890 and its updates), whatever the registry says
 * about their reachability: no webhook receiver lives at a documentation, benchmarking, relay or anycast
 * address. Everything else is refused by name.
 *
 * IPv6 transition forms carry an IPv4 address inside them. The IPv4-mapped form (::ffff:a.b.c.d) *is* that IPv4
 * address on the wire, so it is judged as that address. Every other form (IPv4-compatible, IPv4-translated,
 * NAT64 well-known and local-use prefixes, 6to4, Teredo) lies in a special-purpose range and is refused; the
 * embedded IPv4 is extracted to say which address it leads to. ISATAP interface identifiers (…:0:5efe:a.b.c.d)
 * may sit under any global prefix, so there the embedded IPv4 is checked too and must itself be admitted.
 *
 * @example publicAddressVerdict('2002:7f00:1::') // { ok: false, reason: '2002:7f00:1:: is not a public address (6to4, embedding 127.0.0.1)' }
 */
export type AddressVerdict = { ok: true } | { ok: false; reason: string };

type Range = readonly [base: bigint, prefix: number, name: string];

const v4 = (s: string): bigint => s.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);

/** IANA IPv4 Special-Purpose Address Registry (plus multicast and the limited broadcast address). */
const IPV4_SPECIAL: readonly Range[] = (
  [
    ['0.0.0.0', 8, '"this network"'],
    ['10.0.0.0', 8, 'private'],
    ['100.64.0.0', 10, 'shared address space (CGNAT)'],
    ['127.0.0.0', 8, 'loopback'],
    ['169.254.0.0', 16, 'link-local (cloud metadata)'],
    ['172.16.0.0', 12, 'private'],
    ['192.0.0.0', 24, 'IETF protocol assignments'],
    ['192.0.2.0', 24, 'documentation (TEST-NET-1)'],
    ['192.31.196.0', 24, 'AS112-v4'],
    ['192.52.193.0', 24, 'AMT'],
    ['192.88.99.0', 24, '6to4 relay anycast'],
    ['192.168.0.0', 16, 'private'],
    ['192.175.48.0', 24, 'direct delegation AS112'],
    ['198.18.0.0', 15, 'benchmarking'],
    ['198.51.100.0', 24, 'documentation (TEST-NET-2)'],
    ['203.0.113.0', 24, 'documentation (TEST-NET-3)'],
    ['224.0.0.0', 4, 'multicast'],
    ['240.0.0.0', 4, 'reserved'],
    ['255.255.255.255', 32, 'limited broadcast'],
  ] as const
).map(([a, p, n]) => [v4(a), p, n] as const);

/** The 8 groups of an IPv6 address (zone id dropped, dotted IPv4 tail accepted), or undefined when malformed. */
export const ipv6Groups = (ip: string): number[] | undefined => {
  let s = ip.toLowerCase().split('%')[0] ?? '';
  const tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (tail) {
    const b = tail.slice(1).map(Number);
    if (b.some((x) => x > 255)) return undefined;
    const hi = (((b[0] ?? 0) << 8) | (b[1] ?? 0)).toString(16);
    const lo = (((b[2] ?? 0) << 8) | (b[3] ?? 0)).toString(16);
    s = `${s.slice(0, -tail[0].length)}${hi}:${lo}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const [head = '', rest] = halves;
  const h = head === '' ? [] : head.split(':');
  const t = rest === undefined || rest === '' ? [] : rest.split(':');
  const fill = rest === undefined ? 0 : 8 - h.length - t.length;
  if (fill < 0 || (rest !== undefined && fill === 0)) return undefined;
  const parts = [...h, ...Array<string>(fill).fill('0'), ...t];
  if (parts.length !== 8 || parts.some((p) => !/^[0-9a-f]{1,4}$/.test(p))) return undefined;
  return parts.map((p) => parseInt(p, 16));
};

const v6 = (s: string): bigint => {
  const g = ipv6Groups(s);
  if (!g) throw new Error(`bad IPv6 constant ${s}`);
  return g.reduce((acc, x) => (acc << 16n) | BigInt(x), 0n);
};

/** IANA IPv6 Special-Purpose Address Registry entries inside 2000::/3 (the rest of it lies outside anyway). */
const IPV6_SPECIAL_GLOBAL: readonly Range[] = (
  [
    ['2001::', 23, 'IETF protocol assignments'],
    ['2001::', 32, 'Teredo'],
    ['2001:db8::', 32, 'documentation'],
    ['2002::', 16, '6to4'],
    ['2620:4f:8000::', 48, 'AS112-v6'],
    ['3fff::', 20, 'documentation'],
  ] as const
).map(([a, p, n]) => [v6(a), p, n] as const);

const inRange = (x: bigint, bits: number, [base, prefix]: Range): boolean =>
  x >> BigInt(bits - prefix) === base >> BigInt(bits - prefix);

const dotted = (x: bigint): string =>
  [24n, 16n, 8n, 0n].map((s) => String(Number((x >> s) & 255n))).join('.');

const ipv4Verdict = (x: bigint, shown: string, via = ''): AddressVerdict => {
  const hit = IPV4_SPECIAL.find((r) => inRange(x, 32, r));
  return hit ? { ok: false, reason: `${shown} is not a public address (${via}${hit[2]})` } : { ok: true };
};

/** The IPv4 address an IPv6 transition form leads to, with the form's name. */
export const embeddedIpv4 = (x: bigint): { form: string; ipv4: bigint } | undefined => {
  const low32 = x & 0xffffffffn;
  const top96 = x >> 32n;
  if (top96 === 0xffffn) return { form: 'IPv4-mapped', ipv4: low32 };
  if (top96 === 0n && low32 > 1n) return { form: 'IPv4-compatible', ipv4: low32 };
  if (top96 === 0xffff0000n) return { form: 'IPv4-translated', ipv4: low32 };
  if (top96 === v6('64:ff9b::') >> 32n) return { form: 'NAT64', ipv4: low32 };
  if (x >> 112n === 0x2002n) return { form: '6to4', ipv4: (x >> 80n) & 0xffffffffn };
  if (x >> 96n === 0x20010000n) return { form: 'Teredo', ipv4: low32 ^ 0xffffffffn };
  const iid = (x >> 32n) & 0xffffffffn;
  if (iid === 0x00005efen || iid === 0x02005efen) return { form: 'ISATAP', ipv4: low32 };
  return undefined;
};

const ipv6Verdict = (ip: string): AddressVerdict => {
  const groups = ipv6Groups(ip);
  if (!groups) return { ok: false, reason: `${ip} is not an IP address` };
  const x = groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
  const shown = ip.split('%')[0] ?? ip;
  const embedded = embeddedIpv4(x);
  // The mapped form is the IPv4 address itself.
  if (embedded?.form === 'IPv4-mapped') return ipv4Verdict(embedded.ipv4, shown, 'IPv4-mapped, ');
  const leadsTo = embedded ? `${embedded.form}, embedding ${dotted(embedded.ipv4)}` : undefined;
  const refuse = (why: string): AddressVerdict => ({
    ok: false,
    reason: `${shown} is not a public address (${leadsTo ?? why})`,
  });
  if (x >> 125n !== 1n)
    return refuse(x >> 80n === v6('64:ff9b:1::') >> 80n ? 'NAT64 local-use' : 'not global unicast');
  const special = IPV6_SPECIAL_GLOBAL.filter((r) => inRange(x, 128, r)).pop();
  if (special) return refuse(special[2]);
  if (embedded) {
    const inner = ipv4Verdict(embedded.ipv4, dotted(embedded.ipv4));
    if (!inner.ok) return refuse('');
  }
  return { ok: true };
};

/** Whether a webhook may be sent to this address (an IP literal or a DNS answer); the reason when not. */
export const publicAddressVerdict = (ip: string): AddressVerdict => {
  const family = isIP(ip.split('%')[0] ?? '');
  if (family === 4) return ipv4Verdict(v4(ip), ip);
  if (family === 6) return ipv6Verdict(ip);
  return { ok: false, reason: `${ip} is not an IP address` };
};
