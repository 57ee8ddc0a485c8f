import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { Catalog } from '../core/catalog.ts';
import { readCatalogFile } from '../core/catalog-file.ts';
import { rewriteStatement } from '../core/rewrite/engine.ts';
import { MEASURED_REGRESSIONS } from '../core/rewrite/measured-gate.ts';
import type { SqlDialect } from '../core/sql/dialect.ts';
import { parseSql } from '../core/sql/parse.ts';
import { WAREHOUSE_NAMES, WAREHOUSES } from '../warehouses/index.ts';

export type CliIo = {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  stdin: () => Promise<string>;
};

const USAGE = `usage: sqlgate rewrite --warehouse ${WAREHOUSE_NAMES.join('|')} [--dialect ${[
  ...new Set(WAREHOUSES.flatMap((w) => w.dialects.slice(1))),
].join('|')}] [--schema FILE] [--json] [FILE...]`;

/** The warehouse's default dialect, or the one asked for if the warehouse speaks it; else why not. */
const dialectFor = (
  warehouse: string,
  dialect: string | undefined,
): { ok: true; dialect: SqlDialect } | { ok: false; message: string } => {
  const w = WAREHOUSES.find((d) => d.name === warehouse);
  if (!w)
    return { ok: false, message: `unknown warehouse ${warehouse}; allowed: ${WAREHOUSE_NAMES.join(', ')}` };
  if (dialect === undefined) return { ok: true, dialect: w.dialects[0] };
  const spoken = w.dialects.find((d) => d === dialect);
  return spoken
    ? { ok: true, dialect: spoken }
    : { ok: false, message: `--dialect must be ${w.dialects.join(' or ')} for ${warehouse}, not ${dialect}` };
};

const loadCatalog = async (file: string | undefined): Promise<Catalog | string | undefined> => {
  if (file === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    return `cannot read schema file ${file}: ${e instanceof Error ? e.message : String(e)}`;
  }
  const r = readCatalogFile(json);
  return r.ok ? r.catalog : `schema file ${file}: ${r.message}`;
};

/**
 * `sqlgate rewrite`: prints each input's rewritten SQL (in the warehouse's dialect), or with `--json` one line
 * per input `{"file","rewritten_query","rules_applied","fallback"}`. Reads stdin when no file is named.
 * An input that does not parse prints nothing on stdout (a `{"file","error"}` line with `--json`) and its
 * error with line and column on stderr. Exit code 0, or 1 when an input does not parse, 2 on bad arguments.
 */
export async function rewriteCommand(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        warehouse: { type: 'string' },
        dialect: { type: 'string' },
        schema: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (e) {
    io.stderr(`${e instanceof Error ? e.message : String(e)}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) return (io.stdout(`${USAGE}\n`), 0);
  if (values.warehouse === undefined) return (io.stderr(`--warehouse is required\n${USAGE}\n`), 2);
  // Warehouse names in any letter case, as in the API (`BigQuery` is bigquery).
  const picked = dialectFor(values.warehouse.toLowerCase(), values.dialect);
  if (!picked.ok) return (io.stderr(`${picked.message}\n`), 2);
  const dialect = picked.dialect;
  const catalog = await loadCatalog(values.schema);
  if (typeof catalog === 'string') return (io.stderr(`${catalog}\n`), 2);
  const inputs: Array<{ file: string | null; sql: string }> = [];
  try {
    if (positionals.length === 0) inputs.push({ file: null, sql: await io.stdin() });
    for (const file of positionals) inputs.push({ file, sql: await readFile(file, 'utf8') });
  } catch (e) {
    return (io.stderr(`${e instanceof Error ? e.message : String(e)}\n`), 2);
  }
  let status = 0;
  for (const { file, sql } of inputs) {
    const p = parseSql(sql, dialect);
    const stmt = p.ok ? p.statements[0] : undefined;
    if (!p.ok || stmt === undefined || p.statements.length !== 1) {
      const why = p.ok
        ? 'expected exactly one statement'
        : p.failure.kind === 'too-deep'
          ? 'nested too deeply to rewrite'
          : p.failure.message;
      if (!p.ok && p.failure.kind === 'syntax') {
        // Not SQL the warehouse would run: say where, print nothing to rewrite (stdout is for SQL).
        const { line, column } = p.failure;
        const at = line !== undefined && column !== undefined ? `:${line}:${column}` : '';
        io.stderr(`${file ?? '<stdin>'}${at}: invalid SQL: ${why}\n`);
        if (values.json === true)
          io.stdout(
            `${JSON.stringify({ file, error: { code: 'invalid-sql', message: why, line, column } })}\n`,
          );
        status = 1;
        continue;
      }
      io.stderr(`${file ?? '<stdin>'}: ${why}\n`);
      if (values.json === true)
        io.stdout(`${JSON.stringify({ file, rewritten_query: sql, rules_applied: [], fallback: true })}\n`);
      else io.stdout(`${sql.trimEnd()}\n`);
      if (!p.ok && p.failure.kind === 'syntax') status = 1;
      continue;
    }
    const out = rewriteStatement(stmt, sql, {
      dialect,
      disabled: new Set(),
      budgetMs: 1000,
      now: () => performance.now(),
      measured: MEASURED_REGRESSIONS,
      ...(catalog ? { catalog } : {}),
    });
    if (values.json === true) {
      const line = {
        file,
        rewritten_query: out.sql,
        rules_applied: out.rulesApplied,
        fallback: out.fallback,
      };
      io.stdout(`${JSON.stringify(line)}\n`);
    } else io.stdout(`${out.sql.trimEnd()}\n`);
  }
  return status;
}
