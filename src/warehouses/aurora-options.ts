/** Options shared by the Aurora factories (aurora-postgres.ts, aurora-mysql.ts). */
export type AuroraTlsOptions = {
  /** Verify the server certificate against `ca` (or Node's bundled roots). Default true. */
  readonly rejectUnauthorized?: boolean;
  /** PEM CA bundle, e.g. the Amazon RDS global bundle. */
  readonly ca?: string;
};

export type AuroraOptions = {
  /** `postgres://…` / `postgresql://…` or `mysql://…`, credentials included. */
  readonly url: string;
  readonly poolSize: number;
  /** Ceiling on every statement; `ExecuteOptions.timeoutMs` can only lower it. */
  readonly statementTimeoutMs: number;
  /** Explicit TLS; when given it replaces any TLS parameters in the URL. */
  readonly tls?: AuroraTlsOptions;
  readonly catalogTtlMs: number;
  /** How long to wait for a new connection before reporting the warehouse unavailable. Default 10 s. */
  readonly connectTimeoutMs?: number;
};
