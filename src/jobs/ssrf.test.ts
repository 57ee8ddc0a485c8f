import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../../test/helpers/receiver.ts';
import type { Receiver } from '../../test/helpers/receiver.ts';
import { SPECIAL_SAMPLES, transitionForms } from './address-families.fixture.ts';
import { createSender } from './send-webhook.ts';
import { isForbiddenAddress, refuseWebhookUrl } from './ssrf.ts';
import type { Resolve } from './ssrf.ts';

describe('isForbiddenAddress', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.5',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:a00:1',
    '64:ff9b::a00:1',
    'not-an-ip',
  ])('refuses %s', (ip) => expect(isForbiddenAddress(ip)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:2800:220:1::1', '::ffff:8.8.8.8'])(
    'allows %s',
    (ip) => expect(isForbiddenAddress(ip)).toBe(false),
  );
});

describe('refuseWebhookUrl', () => {
  const publicDns = () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]);
  const refuse = (url: string) => refuseWebhookUrl(url, { allowPrivate: false });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://10.1.2.3/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://localhost:9000/hook',
    'http://[::1]:9000/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://2130706433/hook',
    'http://0x7f.1/hook',
  ])('refuses %s', async (url) => expect(await refuse(url)).toMatch(/public address/));

  it('refuses other schemes and garbage', async () => {
    expect(await refuseWebhookUrl('ftp://example.com/x', { allowPrivate: true })).toMatch(/http and https/);
    expect(await refuseWebhookUrl('file:///etc/passwd', { allowPrivate: true })).toMatch(/http and https/);
    expect(await refuseWebhookUrl('not a url', { allowPrivate: true })).toMatch(/not valid/);
  });

  it('refuses a name that resolves to any private address', async () => {
    const mixed = () =>
      Promise.resolve([
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ]);
    expect(
      await refuseWebhookUrl('https://hooks.example/x', { allowPrivate: false, resolve: mixed }),
    ).toMatch(/10\.0\.0\.1/);
  });

  it('accepts public destinations, and private ones when allowed', async () => {
    expect(
      await refuseWebhookUrl('https://hooks.example/x', { allowPrivate: false, resolve: publicDns }),
    ).toBe(undefined);
    expect(await refuseWebhookUrl('http://127.0.0.1:1/x', { allowPrivate: true })).toBeUndefined();
  });
});

/** URL spellings of an IPv4 host that the WHATWG URL parser reads as that address. */
const urlSpellings = (ip: string): string[] => {
  const [a = 0, b = 0, c = 0, d = 0] = ip.split('.').map(Number);
  const n = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  return [
    ip,
    String(n),
    `0x${n.toString(16)}`,
    [a, b, c, d].map((o) => `0${o.toString(8)}`).join('.'),
    `${a}.${(b << 16) + (c << 8) + d}`,
    `${a}.${b}.${(c << 8) + d}`,
    `0x${a.toString(16)}.${b}.${c}.${d}`,
  ];
};

describe('refuseWebhookUrl: generated families', () => {
  const refuse = (url: string, resolve?: Resolve) =>
    refuseWebhookUrl(url, { allowPrivate: false, ...(resolve ? { resolve } : {}) });

  it.each(SPECIAL_SAMPLES.flatMap((ip) => urlSpellings(ip).map((s) => [ip, s])))(
    'refuses %s spelled %s in a URL',
    async (_ip, spelled) =>
      expect(await refuse(`http://${spelled}:8080/hook`)).toMatch(/not a public address/),
  );

  it.each(
    SPECIAL_SAMPLES.flatMap((ip) => transitionForms(ip).map(([form, addr]) => [ip, form, addr] as const)),
  )('refuses %s as %s in a URL: [%s]', async (_ip, _form, addr) => {
    expect(await refuse(`https://[${addr}]/hook`)).toMatch(/not a public address/);
  });

  it.each(
    SPECIAL_SAMPLES.flatMap((ip) => transitionForms(ip).map(([form, addr]) => [ip, form, addr] as const)),
  )('refuses a name resolving to %s as %s (%s)', async (_ip, _form, addr) => {
    const resolve: Resolve = () =>
      Promise.resolve([
        { address: '93.184.216.34', family: 4 },
        { address: addr, family: 6 },
      ]);
    expect(await refuse('https://hooks.example/x', resolve)).toMatch(/resolves to .* not a public address/);
  });
});

describe('delivery re-checks the address after DNS resolution (injected resolver)', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => receiver.close());

  const message = (host: string) => ({
    url: `http://${host}:${receiver.port}${new URL(receiver.url).pathname}`,
    webhookId: 'msg_test',
    payload: '{"type":"query.completed"}',
    secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  });
  const sendWith = async (resolve: Resolve, allowPrivate: boolean, host = 'hooks.invalid') => {
    const sender = createSender({ timeoutMs: 5_000, allowPrivate }, { resolve });
    try {
      return await sender.send(message(host));
    } finally {
      sender.close();
    }
  };

  it('uses the injected resolver: with private networks allowed, a made-up name reaches the receiver', async () => {
    const seen: string[] = [];
    const out = await sendWith((h) => {
      seen.push(h);
      return Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    }, true);
    expect(seen).toEqual(['hooks.invalid']);
    expect(out.statusCode).toBe(200);
    expect(receiver.received).toHaveLength(1);
  });

  it('refuses a name that resolves (now) to loopback, although it passed at registration', async () => {
    let answer = '93.184.216.34';
    const resolve: Resolve = () => Promise.resolve([{ address: answer, family: 4 }]);
    expect(
      await refuseWebhookUrl('http://hooks.invalid/x', { allowPrivate: false, resolve }),
    ).toBeUndefined();
    answer = '127.0.0.1';
    const before = receiver.received.length;
    const out = await sendWith(resolve, false);
    expect(out.statusCode).toBeNull();
    expect(out.error).toMatch(/refused: hooks\.invalid resolves to a non-public address/);
    expect(receiver.received).toHaveLength(before);
  });

  it.each(transitionForms('127.0.0.1'))(
    'refuses a name resolving to loopback as %s (%s)',
    async (_f, addr) => {
      const before = receiver.received.length;
      const out = await sendWith(() => Promise.resolve([{ address: addr, family: 6 }]), false);
      expect(out.error).toMatch(/refused/);
      expect(receiver.received).toHaveLength(before);
    },
  );

  it.each(transitionForms('127.0.0.1'))('refuses the literal loopback %s form [%s]', async (_f, addr) => {
    const before = receiver.received.length;
    const out = await sendWith(() => Promise.reject(new Error('no DNS for literals')), false, `[${addr}]`);
    expect(out.error).toMatch(/refused: .* is not a public address/);
    expect(receiver.received).toHaveLength(before);
  });
});
