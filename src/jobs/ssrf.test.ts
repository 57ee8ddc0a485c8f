import { describe, expect, it } from 'vitest';
import { isForbiddenAddress, refuseWebhookUrl } from './ssrf.ts';

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
