import type { ColumnInfo } from '../catalog.ts';
import type { SqlType, TypeFamily } from './sql-types.ts';

/** Spellings of one type in the warehouses we read: canonical names, so that equal types compare equal. */
const SYNONYMS: Record<string, string> = {
  int: 'integer',
  int4: 'integer',
  integer: 'integer',
  mediumint: 'integer',
  int8: 'bigint',
  bigint: 'bigint',
  int64: 'bigint',
  long: 'bigint',
  int2: 'smallint',
  smallint: 'smallint',
  short: 'smallint',
  tinyint: 'tinyint',
  float8: 'double',
  double: 'double',
  'double precision': 'double',
  float64: 'double',
  float4: 'real',
  real: 'real',
  float: 'double',
  bool: 'boolean',
  boolean: 'boolean',
  'character varying': 'varchar',
  varchar: 'varchar',
  character: 'char',
  bpchar: 'char',
  char: 'char',
  decimal: 'numeric',
  numeric: 'numeric',
  'timestamp without time zone': 'timestamp',
  'timestamp with time zone': 'timestamptz',
};

const familyOf = (base: string, logical: ColumnInfo['type']): TypeFamily => {
  if (base === 'char') return 'char';
  switch (logical) {
    case 'int64':
      return 'int';
    case 'float64':
      return 'float';
    case 'numeric':
      return 'decimal';
    case 'bool':
      return 'bool';
    case 'string':
      return 'string';
    case 'date':
      return 'date';
    case 'timestamp':
      return 'timestamp';
    case 'timestamptz':
      return 'timestamptz';
    case 'bytes':
      return 'bytes';
    case 'other':
      return 'other';
  }
};

/** The canonical type of a catalog column: its warehouse spelling without synonyms or display widths. */
export const columnType = (col: ColumnInfo): SqlType => {
  const raw = (col.rawType ?? col.type).toLowerCase().trim().replace(/\s+/g, ' ');
  const m = /^([a-z_][a-z0-9_ ]*)(\(([^)]*)\))?\s*(.*)$/.exec(raw);
  const word = (m?.[1] ?? raw).trim();
  const base = SYNONYMS[word] ?? word;
  const params = (m?.[3] ?? '').replace(/\s+/g, '');
  const rest = (m?.[4] ?? '').trim();
  // MySQL's int(11): the width is display only. Other parameters (lengths, precision, scale) matter.
  const kept = ['integer', 'bigint', 'smallint', 'tinyint'].includes(base) ? '' : params;
  const name = `${base}${kept === '' ? '' : `(${kept})`}${rest === '' ? '' : ` ${rest}`}`;
  return {
    family: familyOf(base, col.type),
    name,
    ...(col.collation === undefined ? {} : { collation: col.collation.toLowerCase() }),
  };
};
