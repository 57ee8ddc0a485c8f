import type { Shorthand, Want } from './want.ts';
import { want } from './want.ts';

/**
 * One entry of the fidelity corpus: an expression (run as `SELECT <sql> AS v`) or a whole query (text starting
 * with SELECT or WITH), and what the warehouse's documentation says it returns.
 */
export type Case = {
  readonly sql: string;
  /** One value for an expression; rows (each a list of column values) for a query; or an error. */
  readonly expect: { kind: 'value'; value: Want } | { kind: 'rows'; rows: Want[][] } | { kind: 'error' };
  /** Rows compare in this order (the query orders them); otherwise as a multiset. */
  readonly ordered: boolean;
  /** Local mode refuses this one (422 unsupported-in-local-mode naming this function). */
  readonly refused?: string;
  /** MySQL only: why MariaDB cannot check it (it differs from MySQL here), or absent when it can. */
  readonly notOnMariaDb?: string;
  /** MySQL only: why MariaDB cannot run the printed text (it prints a MySQL 8 spelling MariaDB lacks). */
  readonly printedNotOnMariaDb?: string;
  /** The SQL library cannot parse this valid text (the gateway answers 400 invalid-sql): why. */
  readonly unparsed?: string;
};

export type Group = {
  readonly family: string;
  /** The documentation page (and section) the expected values come from. */
  readonly doc: string;
  readonly cases: readonly Case[];
};

type Options = {
  refused?: string;
  notOnMariaDb?: string;
  printedNotOnMariaDb?: string;
  unparsed?: string;
  ordered?: boolean;
};

/** An expression and its documented value. */
export const v = (sql: string, value: Shorthand, o: Options = {}): Case => ({
  sql,
  expect: { kind: 'value', value: want(value) },
  ordered: false,
  ...o,
});

/** A query and its documented rows (unordered unless `ordered`). */
export const q = (sql: string, rows: Shorthand[][], o: Options = {}): Case => ({
  sql,
  expect: { kind: 'rows', rows: rows.map((r) => r.map(want)) },
  ordered: o.ordered ?? false,
  ...(o.refused !== undefined ? { refused: o.refused } : {}),
  ...(o.notOnMariaDb !== undefined ? { notOnMariaDb: o.notOnMariaDb } : {}),
  ...(o.printedNotOnMariaDb !== undefined ? { printedNotOnMariaDb: o.printedNotOnMariaDb } : {}),
  ...(o.unparsed !== undefined ? { unparsed: o.unparsed } : {}),
});

/** An expression or query the documentation says raises an error (e.g. division by zero). */
export const fails = (sql: string, o: Options = {}): Case => ({
  sql,
  expect: { kind: 'error' },
  ordered: false,
  ...o,
});

export const isQuery = (sql: string): boolean => /^\s*(SELECT|WITH)\b/i.test(sql);

/** The text that runs: a query as it is, an expression as `SELECT <expr> AS v`. */
export const runnable = (c: Case): string => (isQuery(c.sql) ? c.sql : `SELECT ${c.sql} AS v`);

export const count = (groups: readonly Group[]): number => groups.reduce((n, g) => n + g.cases.length, 0);
