import { AuthClient, JWT, UserRefreshClient } from 'google-auth-library';
import type { BigQueryCredentials } from './bigquery-credentials.ts';

const SCOPES = ['https://www.googleapis.com/auth/bigquery'];

/** The stub auth client of an `http://` endpoint: no headers, no token, no request of its own. */
export class NoCredentials extends AuthClient {
  override getRequestHeaders(): Promise<Headers> {
    return Promise.resolve(new Headers());
  }
  override getAccessToken(): Promise<{ token?: string | null }> {
    return Promise.resolve({ token: null });
  }
  override request(): Promise<never> {
    return Promise.reject(new Error('NoCredentials sends no requests of its own'));
  }
}

const text = (json: Readonly<Record<string, unknown>>, key: string): string | undefined =>
  typeof json[key] === 'string' ? json[key] : undefined;

/**
 * The auth client for the BigQuery client library, or undefined to let it discover application default
 * credentials itself. A service account signs a JWT exchanged for an OAuth token (the standard flow); an
 * authorized user refreshes its token.
 */
export const authClientFor = (c: BigQueryCredentials): AuthClient | undefined => {
  switch (c.kind) {
    case 'none':
      return new NoCredentials();
    case 'application-default':
      return undefined;
    case 'file': {
      const j = c.file.json;
      if (text(j, 'type') === 'authorized_user')
        return new UserRefreshClient({
          clientId: text(j, 'client_id') ?? '',
          clientSecret: text(j, 'client_secret') ?? '',
          refreshToken: text(j, 'refresh_token') ?? '',
          ...(text(j, 'quota_project_id') !== undefined
            ? { quotaProjectId: text(j, 'quota_project_id') }
            : {}),
        });
      return new JWT({
        email: text(j, 'client_email') ?? '',
        key: text(j, 'private_key') ?? '',
        ...(text(j, 'private_key_id') !== undefined ? { keyId: text(j, 'private_key_id') } : {}),
        scopes: SCOPES,
      });
    }
  }
};
