/**
 * Generated address families for the SSRF tests: every special-purpose IPv4 range (first, middle and last
 * address) and every IPv6 transition encoding of an IPv4 address.
 */
/** IANA IPv4 Special-Purpose Address Registry, multicast and reserved space: the oracle's copy. */
export const SPECIAL_IPV4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.0.0', 29],
  ['192.0.0.8', 32],
  ['192.0.0.9', 32],
  ['192.0.0.10', 32],
  ['192.0.0.170', 31],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
  ['255.255.255.255', 32],
];

const toInt = (ip: string): number => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
const toDotted = (n: number): string => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
const hex4 = (n: number): string => n.toString(16);

/** First, middle and last address of every special range. */
export const SPECIAL_SAMPLES: readonly string[] = [
  ...new Set(
    SPECIAL_IPV4.flatMap(([net, prefix]) => {
      const first = toInt(net);
      const size = 2 ** (32 - prefix);
      return [first, first + Math.floor(size / 2), first + size - 1].map(toDotted);
    }),
  ),
];

export const PUBLIC_SAMPLES = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '223.255.255.254',
  '172.32.0.1',
  '100.128.0.1',
];

/** Every IPv6 form that carries `ip` (a dotted IPv4), with the form's name. */
export const transitionForms = (ip: string): Array<[form: string, address: string]> => {
  const n = toInt(ip);
  const hi = Math.floor(n / 65536);
  const lo = n % 65536;
  const [a = 0, b = 0, c = 0, d = 0] = ip.split('.').map(Number);
  const xhi = hi ^ 0xffff;
  const xlo = lo ^ 0xffff;
  return [
    ['mapped, dotted', `::ffff:${ip}`],
    ['mapped, hex', `::ffff:${hex4(hi)}:${hex4(lo)}`],
    ['mapped, uncompressed upper case', `0:0:0:0:0:FFFF:${hex4(hi).toUpperCase()}:${hex4(lo).toUpperCase()}`],
    ['compatible, dotted', `::${ip}`],
    ['compatible, hex', `::${hex4(hi)}:${hex4(lo)}`],
    ['translated, dotted', `::ffff:0:${ip}`],
    ['translated, hex', `0:0:0:0:ffff:0:${hex4(hi)}:${hex4(lo)}`],
    ['NAT64 well-known, dotted', `64:ff9b::${ip}`],
    ['NAT64 well-known, hex', `64:ff9b::${hex4(hi)}:${hex4(lo)}`],
    ['NAT64 local-use /96', `64:ff9b:1::${hex4(hi)}:${hex4(lo)}`],
    ['NAT64 local-use /48 (RFC 6052)', `64:ff9b:1:${hex4((a << 8) | b)}:${hex4(c)}:${hex4(d << 8)}::`],
    ['NAT64 local-use /64 (RFC 6052)', `64:ff9b:1:0:${hex4(a)}:${hex4((b << 8) | c)}:${hex4(d << 8)}:0`],
    ['6to4 /48', `2002:${hex4(hi)}:${hex4(lo)}::`],
    ['6to4 host', `2002:${hex4(hi)}:${hex4(lo)}:1::1`],
    ['Teredo client', `2001:0:4136:e378:8000:63bf:${hex4(xhi)}:${hex4(xlo)}`],
    ['Teredo server', `2001:0:${hex4(hi)}:${hex4(lo)}:0:0:f7f7:f7f7`],
    ['ISATAP, dotted', `2600:1f18::5efe:${ip}`],
    ['ISATAP universal, hex', `2600:1f18::200:5efe:${hex4(hi)}:${hex4(lo)}`],
  ];
};
