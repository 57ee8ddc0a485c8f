import { BlockList } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { publicAddressVerdict } from './public-address.ts';
import {
  PUBLIC_SAMPLES,
  SPECIAL_IPV4,
  SPECIAL_SAMPLES,
  transitionForms,
} from './address-families.fixture.ts';

/**
 * The allowlist against an independent oracle (node:net's BlockList over the IANA special-purpose registries),
 * and every IPv6 transition encoding of every special IPv4 range.
 */

const oracle = new BlockList();
for (const [net, prefix] of SPECIAL_IPV4) oracle.addSubnet(net, prefix, 'ipv4');

describe('publicAddressVerdict: IPv4', () => {
  it.each(SPECIAL_SAMPLES)('refuses special-purpose %s', (ip) => {
    const v = publicAddressVerdict(ip);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.reason).toMatch(/is not a public address/);
  });

  it.each(PUBLIC_SAMPLES)('admits %s', (ip) => expect(publicAddressVerdict(ip)).toEqual({ ok: true }));

  it('agrees with the registry oracle on random addresses', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(publicAddressVerdict(ip).ok).toBe(!oracle.check(ip, 'ipv4'));
      }),
      { numRuns: 20_000 },
    );
  });

  it('refuses what is not an address', () => {
    for (const s of ['', 'localhost', '1.2.3', '256.1.1.1', '1.2.3.4.5', '::g', '1::2::3'])
      expect(publicAddressVerdict(s).ok).toBe(false);
  });
});

describe('publicAddressVerdict: IPv6', () => {
  const SPECIAL_IPV6 = [
    '::',
    '::1',
    '100::1',
    '5f00::1',
    'fc00::1',
    'fd00:ec2::254',
    'fe80::1',
    'fe80::1%eth0',
    'fec0::1',
    'ff02::1',
    '2001::1',
    '2001:1::1',
    '2001:2::1',
    '2001:3::1',
    '2001:4:112::1',
    '2001:10::1',
    '2001:20::1',
    '2001:30::1',
    '2001:1ff:ffff::1',
    '2001:db8::1',
    '2620:4f:8000::1',
    '3fff::1',
    '3fff:fff::1',
    '4000::1',
    'e000::1',
  ];
  it.each(SPECIAL_IPV6)('refuses %s', (ip) => expect(publicAddressVerdict(ip).ok).toBe(false));

  it.each([
    '2606:2800:220:1::1',
    '2a00:1450:4001:82b::200e',
    '2001:200::1',
    '2620:4f:8001::1',
    '3fff:1000::1',
  ])('admits %s', (ip) => expect(publicAddressVerdict(ip)).toEqual({ ok: true }));

  // Every transition encoding of every special IPv4 range is refused, and says which IPv4 it leads to.
  const family = SPECIAL_SAMPLES.flatMap((ip) => transitionForms(ip).map(([form, addr]) => [ip, form, addr]));
  it.each(family)('refuses %s as %s: %s', (_ip, _form, addr) => {
    const v = publicAddressVerdict(addr);
    expect(v.ok).toBe(false);
  });

  it('names the embedded IPv4 address in the reason', () => {
    expect(publicAddressVerdict('2002:7f00:1::')).toEqual({
      ok: false,
      reason: '2002:7f00:1:: is not a public address (6to4, embedding 127.0.0.1)',
    });
    const teredo = publicAddressVerdict('2001:0:4136:e378:8000:63bf:80ff:fffe');
    expect(teredo.ok || teredo.reason).toMatch(/Teredo, embedding 127\.0\.0\.1/);
    const nat64 = publicAddressVerdict('64:ff9b::a9fe:a9fe');
    expect(nat64.ok || nat64.reason).toMatch(/NAT64, embedding 169\.254\.169\.254/);
  });

  // A public IPv4 in a transition form: only the mapped form (which is that IPv4 address on the wire) and ISATAP
  // under a global prefix are admitted; the others sit in special-purpose ranges.
  it.each(PUBLIC_SAMPLES.flatMap((ip) => transitionForms(ip).map(([form, addr]) => [ip, form, addr])))(
    'public %s as %s: %s',
    (_ip, form, addr) => {
      expect(publicAddressVerdict(addr).ok).toBe(form.startsWith('mapped') || form.startsWith('ISATAP'));
    },
  );
});
