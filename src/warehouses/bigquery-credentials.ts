import { readFileSync } from 'node:fs';
import type { Parsed } from '../setting.ts';

/** A credentials file as config.ts read it: its path, the setting that named it, its parsed JSON. */
export type CredentialsFile = {
  readonly setting: string;
  readonly path: string;
  readonly json: Readonly<Record<string, unknown>>;
};

/**
 * Where BigQuery requests get their credentials:
 * - `none`: an `http://` endpoint (an emulator, a test stand-in): requests go without auth, never with a
 *   token in clear text;
 * - `file`: a service-account key or an authorized-user file (SQLGATE_BIGQUERY_KEY_FILE, or
 *   GOOGLE_APPLICATION_CREDENTIALS), read once at start;
 * - `application-default`: the client's own discovery (GOOGLE_APPLICATION_CREDENTIALS of another kind, such as
 *   workload identity federation; `gcloud auth application-default login`; the metadata server).
 */
export type BigQueryCredentials =
  | { readonly kind: 'none' }
  | { readonly kind: 'file'; readonly file: CredentialsFile }
  | { readonly kind: 'application-default' };

/** Credential file kinds the gateway builds a client for itself; others are left to application default. */
export const OWN_CREDENTIAL_TYPES = ['service_account', 'authorized_user'] as const;

/** Names where the credentials come from, for error messages: the setting and path, never the secret. */
export const credentialsHint = (c: BigQueryCredentials): string => {
  switch (c.kind) {
    case 'none':
      return 'none: the http:// endpoint of SQLGATE_BIGQUERY_API_ENDPOINT is called without auth';
    case 'file':
      return `${c.file.setting}=${c.file.path}`;
    case 'application-default':
      return 'application default credentials: GOOGLE_APPLICATION_CREDENTIALS, gcloud auth application-default login, or the metadata server; or set SQLGATE_BIGQUERY_KEY_FILE';
  }
};

/**
 * Parses a credentials file setting: a readable JSON file with a `type`; a service-account key also needs
 * `client_email` and `private_key`. Messages name the path, never the contents.
 */
export const credentialsFile =
  (setting: string) =>
  (raw: string | undefined): Parsed<CredentialsFile | undefined> => {
    if (raw === undefined) return { ok: true, value: undefined };
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(raw, 'utf8'));
    } catch {
      return { ok: false, message: `cannot read ${raw} as a JSON credentials file` };
    }
    if (typeof json !== 'object' || json === null || typeof (json as { type?: unknown }).type !== 'string')
      return { ok: false, message: `${raw} is not a Google credentials file (no "type")` };
    const j = json as Record<string, unknown>;
    if (
      j.type === 'service_account' &&
      (typeof j.client_email !== 'string' || typeof j.private_key !== 'string')
    )
      return { ok: false, message: `${raw}: a service-account key needs client_email and private_key` };
    return { ok: true, value: { setting, path: raw, json: j } };
  };
