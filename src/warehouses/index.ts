import { aurora } from './aurora.ts';
import { bigquery } from './bigquery.ts';
import { snowflake } from './snowflake.ts';

/**
 * Every warehouse, in the order GET /warehouses lists them. The only registry: names in config validation,
 * the CLI, the API schemas and GET /warehouses derive from it. Adding a warehouse is one file in this folder
 * plus one line here; `test/warehouses/registered.test.ts` fails when a definition file is not listed.
 */
export const WAREHOUSES = [bigquery, snowflake, aurora] as const;

export type WarehouseName = (typeof WAREHOUSES)[number]['name'];

export const WAREHOUSE_NAMES: readonly WarehouseName[] = WAREHOUSES.map((w) => w.name);

export const isWarehouseName = (s: string): s is WarehouseName =>
  (WAREHOUSE_NAMES as readonly string[]).includes(s);
