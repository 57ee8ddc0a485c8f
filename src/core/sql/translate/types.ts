import type { ColumnType } from '../../catalog.ts';
import type { SqlNode } from '../tree.ts';

/** The dialects local mode reads (MySQL has no local mode, but its rules document what the library keeps). */
export type LocalDialect = 'bigquery' | 'snowflake' | 'postgres';

/** Function families, as `GET /warehouses` lists them per dialect. */
export const FAMILIES = [
  'date-arithmetic',
  'date-truncation',
  'date-difference',
  'date-parts',
  'date-formatting',
  'time-zones',
  'division',
  'math',
  'strings',
  'regex',
  'conditional',
  'aggregates',
  'approximate',
  'arrays',
  'structs',
  'semi-structured',
  'window-functions',
] as const;
export type Family = (typeof FAMILIES)[number];

/** The type of a column reference, when the caller knows it (local mode: from the local catalog). */
export type ColumnTypeOf = (column: string, table: string | undefined) => ColumnType | undefined;

/** Where a call stands, for the few rules whose translation depends on it. */
export type CallContext = {
  /** The call is the function of a window (`f(…) OVER (…)`): its translation must stay a plain call. */
  readonly inWindow: boolean;
  /** The call is an item of a FROM clause or a JOIN (a table function, VALUES, UNNEST). */
  readonly inFrom: boolean;
  /** Snowflake: aliases of FLATTEN in the statement (their VALUE column is semi-structured). */
  readonly flattenAliases: ReadonlySet<string>;
  readonly columnType: ColumnTypeOf;
};

/** One call (or operator) as a rule sees it: its node kind, the name the user wrote when known, its arguments. */
export type Call = {
  readonly kind: string;
  /** Upper-case function name for generic calls; the rule's display name for typed nodes. */
  readonly name: string;
  readonly payload: Readonly<Record<string, unknown>>;
  /** Positional arguments of a generic call (named arguments included as they are). */
  readonly args: readonly SqlNode[];
  readonly ctx: CallContext;
};

/**
 * What local mode makes of a call:
 * - `keep`: the SQL library's own translation, shown right by the fidelity corpus;
 * - `node`: a replacement in the source dialect, which the library then translates (it must not match the
 *   same rule again);
 * - `duckdb`: DuckDB text with `{0}`…`{n}` standing for `args`, each translated by the library;
 * - `refuse`: local mode cannot run it faithfully (`reason` says why, for the user).
 */
export type Translation =
  | { readonly kind: 'keep' }
  | { readonly kind: 'node'; readonly node: SqlNode }
  | {
      readonly kind: 'duckdb';
      readonly template: string;
      readonly args: readonly SqlNode[];
      /** A FROM item made of a template gets this alias (the template itself is a derived table). */
      readonly alias?: string;
    }
  | { readonly kind: 'refuse'; readonly reason: string };

export const keep: Translation = { kind: 'keep' };
export const refuse = (reason: string): Translation => ({ kind: 'refuse', reason });
export const duckdb = (template: string, ...args: unknown[]): Translation => ({
  kind: 'duckdb',
  template,
  args: args as SqlNode[],
});
export const replaceWith = (node: SqlNode): Translation => ({ kind: 'node', node });

/**
 * How local mode runs one function (or operator) of a dialect. A rule without `translate` keeps the library's
 * translation; one with `translate` corrects it (its `why` says what the library gets wrong). Either way the
 * fidelity corpus (test/dialects) holds cases for it.
 *
 * @example { names: ['SAFE_DIVIDE'], kinds: ['safe_divide'], family: 'division',
 *            why: 'the library divides integers as integers', translate: (c) => duckdb('…', …) }
 */
export type LocalRule = {
  /** Generic call names (upper case) the rule takes. */
  readonly names?: readonly string[];
  /** Typed node kinds of the SQL library the rule takes. */
  readonly kinds?: readonly string[];
  readonly family: Family;
  readonly translate?: (call: Call) => Translation;
  readonly why?: string;
};

export type RuleSet = Readonly<Record<LocalDialect, readonly LocalRule[]>>;
