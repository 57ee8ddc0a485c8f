import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { publicAddressVerdict } from './public-address.ts';

/**
 * The SSRF guard: a webhook URL is chosen by an account, so the gateway must not be turned into a proxy to
 * its own network. Only public addresses are admitted (`public-address.ts`: global unicast outside every IANA
 * special-purpose range, IPv6 transition forms judged by the IPv4 address they embed), unless private networks
 * are explicitly allowed. The check runs when a URL is registered and again at delivery, on the very address
 * the socket connects to after DNS resolution.
 */
export const isForbiddenAddress = (ip: string): boolean => !publicAddressVerdict(ip).ok;

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
  if (isIP(host) !== 0) {
    const verdict = publicAddressVerdict(host);
    return verdict.ok ? undefined : verdict.reason;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await (opts.resolve ?? systemResolve)(host);
  } catch {
    return `${host} does not resolve`;
  }
  if (addresses.length === 0) return `${host} does not resolve`;
  for (const a of addresses) {
    const verdict = publicAddressVerdict(a.address);
    if (!verdict.ok) return `${host} resolves to ${verdict.reason}`;
  }
  return undefined;
};

/**
 * A DNS lookup for the delivery's HTTP agent that refuses forbidden addresses. The socket connects to the very
 * address checked here, so a DNS answer that changes between check and connect (rebinding) cannot slip through.
 * `resolve` replaces the system resolver (tests inject one they control).
 */
export const guardedLookup =
  (allowPrivate: boolean, resolve?: Resolve): LookupFunction =>
  (hostname, options, callback) => {
    const answer: Promise<LookupAddress[]> = resolve
      ? resolve(hostname)
      : new Promise((ok, fail) =>
          dnsLookup(hostname, { ...options, all: true }, (err, a) => (err ? fail(err) : ok(a))),
        );
    answer.then(
      (all) => {
        const addresses =
          options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
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
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 4),
    );
  };
