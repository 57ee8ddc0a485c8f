import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JWT, UserRefreshClient } from 'google-auth-library';
import { describe, expect, it } from 'vitest';
import { authClientFor, NoCredentials } from './bigquery-auth.ts';
import { credentialsFile, credentialsHint } from './bigquery-credentials.ts';

const dir = mkdtempSync(join(tmpdir(), 'sqlgate-bq-auth-'));
const write = (name: string, content: string): string => {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
};
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const serviceAccount = write(
  'sa.json',
  JSON.stringify({
    type: 'service_account',
    client_email: 'gate@p.iam.gserviceaccount.com',
    private_key: key,
    private_key_id: 'k1',
  }),
);

describe('BigQuery credentials', () => {
  it('reads a service-account key into a JWT client, and names only the setting and the path', () => {
    const parsed = credentialsFile('SQLGATE_BIGQUERY_KEY_FILE')(serviceAccount);
    if (!parsed.ok || !parsed.value) throw new Error('expected a file');
    const c = { kind: 'file' as const, file: parsed.value };
    const client = authClientFor(c);
    expect(client).toBeInstanceOf(JWT);
    expect((client as JWT).email).toBe('gate@p.iam.gserviceaccount.com');
    expect(credentialsHint(c)).toBe(`SQLGATE_BIGQUERY_KEY_FILE=${serviceAccount}`);
    expect(credentialsHint(c)).not.toContain('PRIVATE KEY');
  });
  it('reads an authorized-user file; leaves other kinds to application default credentials', () => {
    const file = write(
      'user.json',
      JSON.stringify({ type: 'authorized_user', client_id: 'c', client_secret: 's', refresh_token: 'r' }),
    );
    const parsed = credentialsFile('GOOGLE_APPLICATION_CREDENTIALS')(file);
    if (!parsed.ok || !parsed.value) throw new Error('expected a file');
    expect(authClientFor({ kind: 'file', file: parsed.value })).toBeInstanceOf(UserRefreshClient);
    expect(authClientFor({ kind: 'application-default' })).toBeUndefined();
  });
  it('sends nothing to an http:// endpoint', async () => {
    const none = authClientFor({ kind: 'none' });
    expect(none).toBeInstanceOf(NoCredentials);
    expect([...(await (none as NoCredentials).getRequestHeaders()).keys()]).toEqual([]);
  });
  it('refuses unreadable, non-JSON, untyped or incomplete files without quoting them', () => {
    const parse = credentialsFile('SQLGATE_BIGQUERY_KEY_FILE');
    expect(parse(join(dir, 'missing.json'))).toMatchObject({ ok: false });
    expect(parse(write('text.json', 'secret-ish text'))).toMatchObject({ ok: false });
    expect(parse(write('untyped.json', '{"a":1}'))).toMatchObject({ ok: false });
    const incomplete = parse(
      write('incomplete.json', JSON.stringify({ type: 'service_account', private_key: key })),
    );
    expect(incomplete).toMatchObject({ ok: false });
    expect(JSON.stringify(incomplete)).not.toContain('PRIVATE KEY');
    expect(parse(undefined)).toEqual({ ok: true, value: undefined });
  });
});
