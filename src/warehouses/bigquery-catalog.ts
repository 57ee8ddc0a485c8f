import { catalogOf, normaliseType } from '../core/catalog.ts';
import type { Catalog, ColumnInfo, Partitioning, TableInfo } from '../core/catalog.ts';
import type { NamedTable } from '../core/sql/references.ts';
import { ttlCache } from './ttl-cache.ts';

/** The parts of a BigQuery Table resource (tables.get) the catalog reads. */
export type TableResource = {
  readonly type?: string;
  readonly schema?: { readonly fields?: ReadonlyArray<FieldResource> };
  readonly timePartitioning?: { readonly type?: string; readonly field?: string };
  readonly rangePartitioning?: {
    readonly field?: string;
    readonly range?: { readonly start?: string; readonly end?: string; readonly interval?: string };
  };
  readonly clustering?: { readonly fields?: readonly string[] };
  readonly tableConstraints?: { readonly primaryKey?: { readonly columns?: readonly string[] } };
};

type FieldResource = { readonly name?: string; readonly type?: string; readonly mode?: string };

const GRANULARITY: Readonly<Record<string, Partitioning['granularity']>> = {
  HOUR: 'hour',
  DAY: 'day',
  MONTH: 'month',
  YEAR: 'year',
};

const columnOf = (f: FieldResource): ColumnInfo => {
  const raw = f.type ?? 'STRING';
  return {
    name: f.name ?? '',
    // An ARRAY (mode REPEATED) or a STRUCT has no scalar logical type.
    type: f.mode === 'REPEATED' ? 'other' : normaliseType(raw),
    rawType: f.mode === 'REPEATED' ? `ARRAY<${raw}>` : raw,
    nullable: f.mode !== 'REQUIRED',
  };
};

/**
 * A table as the gateway knows it, from its BigQuery resource: columns and their types, the primary key
 * (BigQuery keys are declared NOT ENFORCED; BigQuery's own optimizer trusts them, and so do the rules),
 * time partitioning by column or by ingestion time (`_PARTITIONTIME`), integer-range partitioning, clustering.
 * No per-column sizes: the dry run, not a model, prices connected BigQuery.
 */
export const tableInfoOf = (name: string, t: TableResource): TableInfo => {
  const time = t.timePartitioning;
  const granularity = GRANULARITY[time?.type ?? ''];
  const range = t.rangePartitioning;
  const pk = t.tableConstraints?.primaryKey?.columns;
  return {
    name,
    columns: (t.schema?.fields ?? []).filter((f) => f.name).map(columnOf),
    ...(pk && pk.length > 0 ? { primaryKey: [...pk] } : {}),
    ...(time && granularity
      ? {
          partitioning: time.field
            ? { column: time.field, granularity, kind: 'column' as const }
            : { column: '_PARTITIONTIME', granularity, kind: 'ingestion-time' as const },
        }
      : {}),
    ...(range?.field && range.range
      ? {
          rangePartitioning: {
            column: range.field,
            start: Number(range.range.start ?? 0),
            end: Number(range.range.end ?? 0),
            interval: Number(range.range.interval ?? 1),
          },
        }
      : {}),
    ...(t.clustering?.fields && t.clustering.fields.length > 0
      ? { clustering: [...t.clustering.fields] }
      : {}),
  };
};

export type TableRef = { readonly project: string; readonly dataset: string; readonly table: string };

/**
 * The catalog of the tables a query names, each loaded with `load` (tables.get) and kept `ttlMs`; concurrent
 * queries share a load, a failed load is not kept. A name without a dataset reads the default dataset. A table
 * that cannot be loaded (missing, not permitted, BigQuery down) is left out: rules that need it do not fire,
 * and the query itself reports BigQuery's error. Two tables of the same name in different datasets are both
 * left out, since the catalog is keyed by bare name and cannot tell them apart.
 */
export const bigQueryCatalog = (
  defaults: { readonly project: string; readonly dataset?: string },
  ttlMs: number,
  load: (ref: TableRef) => Promise<TableResource | undefined>,
): ((tables?: readonly NamedTable[]) => Promise<Catalog>) => {
  const cached = new Map<string, () => Promise<TableResource | undefined>>();
  const resource = (ref: TableRef): Promise<TableResource | undefined> => {
    const key = `${ref.project}.${ref.dataset}.${ref.table}`;
    let get = cached.get(key);
    if (!get) {
      get = ttlCache(ttlMs, () => load(ref));
      cached.set(key, get);
    }
    return get();
  };
  return async (tables = []) => {
    const refs = tables.flatMap((t): Array<{ name: string; ref: TableRef }> => {
      const dataset = t.schema ?? defaults.dataset;
      return dataset === undefined
        ? []
        : [{ name: t.name, ref: { project: t.catalog ?? defaults.project, dataset, table: t.name } }];
    });
    const loaded = await Promise.all(
      refs.map(async ({ name, ref }) => ({
        name,
        ref,
        resource: await resource(ref).catch(() => undefined),
      })),
    );
    const byName = new Map<string, Array<(typeof loaded)[number]>>();
    for (const l of loaded)
      byName.set(l.name.toLowerCase(), [...(byName.get(l.name.toLowerCase()) ?? []), l]);
    const infos: TableInfo[] = [];
    for (const same of byName.values()) {
      const distinct = new Set(same.map((l) => `${l.ref.project}.${l.ref.dataset}.${l.ref.table}`));
      const only = same[0];
      if (distinct.size === 1 && only?.resource) infos.push(tableInfoOf(only.name, only.resource));
    }
    return catalogOf(infos);
  };
};
