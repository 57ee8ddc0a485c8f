import { isRecord, kindOf } from '../tree.ts';
import { payloadOf } from './nodes.ts';
import type { CallContext, LocalDialect } from './types.ts';

/** The little a translation rule may need to know about an argument's type, when it can be told statically. */
export type StaticType =
  'date' | 'timestamp' | 'timestamptz' | 'int' | 'float' | 'numeric' | 'string' | 'bool' | 'json';

/** A cast target as one upper-case word (`TIMESTAMP`, `TIMESTAMPTZ`, `INT64`, `VARCHAR`, …). */
export const dataTypeName = (to: unknown): string | undefined => {
  if (!isRecord(to)) return undefined;
  const dt = isRecord(to.data_type) ? to.data_type : to;
  const base = dt.data_type;
  if (base === 'custom' && typeof dt.name === 'string') return dt.name.toUpperCase().replace(/_/g, '');
  if (typeof base !== 'string') return undefined;
  const name = base.toUpperCase().replace(/_/g, '');
  return name === 'TIMESTAMP' && dt.timezone === true ? 'TIMESTAMPTZ' : name;
};

const TYPE_WORDS: Record<string, StaticType> = {
  DATE: 'date',
  DATETIME: 'timestamp',
  TIMESTAMPNTZ: 'timestamp',
  TIMESTAMPTZ: 'timestamptz',
  TIMESTAMPLTZ: 'timestamptz',
  INT: 'int',
  INTEGER: 'int',
  INT64: 'int',
  BIGINT: 'int',
  SMALLINT: 'int',
  FLOAT: 'float',
  FLOAT64: 'float',
  DOUBLE: 'float',
  DOUBLEPRECISION: 'float',
  REAL: 'float',
  DECIMAL: 'numeric',
  NUMERIC: 'numeric',
  NUMBER: 'numeric',
  TEXT: 'string',
  STRING: 'string',
  VARCHAR: 'string',
  BOOLEAN: 'bool',
  BOOL: 'bool',
  JSON: 'json',
  JSONB: 'json',
  VARIANT: 'json',
};

/** What a cast to this type yields; BigQuery's TIMESTAMP is absolute (with time zone), elsewhere it is civil. */
export const castType = (to: unknown, dialect: LocalDialect): StaticType | undefined => {
  const name = dataTypeName(to);
  if (name === undefined) return undefined;
  if (name === 'TIMESTAMP') return dialect === 'bigquery' ? 'timestamptz' : 'timestamp';
  return TYPE_WORDS[name];
};

const FROM_CATALOG: Record<string, StaticType | undefined> = {
  int64: 'int',
  float64: 'float',
  numeric: 'numeric',
  bool: 'bool',
  string: 'string',
  date: 'date',
  timestamp: 'timestamp',
  timestamptz: 'timestamptz',
};

/** The type of an expression when it is plain from the tree (literals, casts, known columns), else undefined. */
export const staticType = (
  node: unknown,
  dialect: LocalDialect,
  ctx: CallContext,
): StaticType | undefined => {
  const kind = kindOf(node);
  const p = payloadOf(node);
  if (kind === undefined || p === undefined) return undefined;
  switch (kind) {
    case 'literal': {
      const t = p.literal_type;
      if (t === 'number')
        return /[.eE]/.test(String(p.value)) ? (dialect === 'bigquery' ? 'float' : 'numeric') : 'int';
      if (t === 'string' || t === 'raw_string') return 'string';
      if (t === 'date') return 'date';
      if (t === 'datetime') return 'timestamp';
      if (t === 'timestamp') return dialect === 'bigquery' ? 'timestamptz' : 'timestamp';
      return undefined;
    }
    case 'cast':
    case 'try_cast':
    case 'safe_cast':
      return castType(p.to, dialect);
    case 'paren':
    case 'neg':
      return staticType(p.this, dialect, ctx);
    case 'add':
    case 'sub':
    case 'mul': {
      const [l, r] = [staticType(p.left, dialect, ctx), staticType(p.right, dialect, ctx)];
      return l === 'float' || r === 'float' ? 'float' : l === r ? l : undefined;
    }
    case 'column': {
      const name = isRecord(p.name) && typeof p.name.name === 'string' ? p.name.name : undefined;
      const table = isRecord(p.table) && typeof p.table.name === 'string' ? p.table.name : undefined;
      const t = name === undefined ? undefined : ctx.columnType(name, table);
      return t === undefined ? undefined : FROM_CATALOG[t];
    }
    case 'div':
      return dialect === 'bigquery' ? 'float' : undefined;
    case 'avg':
    case 'safe_divide':
      return 'float';
    case 'current_date':
      return 'date';
    default:
      return undefined;
  }
};
