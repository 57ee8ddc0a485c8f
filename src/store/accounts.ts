import { randomUUID } from 'node:crypto';
import type { Queryable } from './db.ts';

export type Account = { id: string; email: string; passwordHash: string | null; createdAt: Date };

type Row = { id: string; email: string; password_hash: string | null; created_at: Date | string };
const toAccount = (r: Row): Account => ({
  id: r.id,
  email: r.email,
  passwordHash: r.password_hash,
  createdAt: new Date(r.created_at),
});

export const findAccountByEmail = async (db: Queryable, email: string): Promise<Account | undefined> => {
  const { rows } = await db.query<Row>('SELECT * FROM accounts WHERE lower(email) = lower($1)', [email]);
  return rows[0] ? toAccount(rows[0]) : undefined;
};

export const findAccountById = async (db: Queryable, id: string): Promise<Account | undefined> => {
  const { rows } = await db.query<Row>('SELECT * FROM accounts WHERE id = $1', [id]);
  return rows[0] ? toAccount(rows[0]) : undefined;
};

/** Creates the account, or returns the existing one with that email (case-insensitive); `created` says which. */
export const ensureAccountReporting = async (
  db: Queryable,
  email: string,
  passwordHash: string | null = null,
): Promise<{ account: Account; created: boolean }> => {
  const { rows } = await db.query<Row>(
    `INSERT INTO accounts (id, email, password_hash) VALUES ($1, $2, $3)
     ON CONFLICT (lower(email)) DO NOTHING RETURNING *`,
    [`acc_${randomUUID().replace(/-/g, '')}`, email, passwordHash],
  );
  if (rows[0]) return { account: toAccount(rows[0]), created: true };
  const existing = await findAccountByEmail(db, email);
  if (!existing) throw new Error('account vanished during creation');
  return { account: existing, created: false };
};

/** Creates the account, or returns the existing one with that email (case-insensitive). */
export const ensureAccount = async (
  db: Queryable,
  email: string,
  passwordHash: string | null = null,
): Promise<Account> => (await ensureAccountReporting(db, email, passwordHash)).account;
