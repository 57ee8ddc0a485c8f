import mysql from 'mysql2/promise';
import { loadTpch, randomSchemaName } from './load-tpch.ts';

/** A fresh database `sg_<random>` holding the TPC-H corpus, and a URL pointing at it. `drop` removes it. */
export const createMysqlTpchDatabase = async (
  baseUrl: string,
): Promise<{ url: string; database: string; drop: () => Promise<void> }> => {
  const database = randomSchemaName();
  const conn = await mysql.createConnection(baseUrl);
  try {
    await conn.query(`CREATE DATABASE ${database}`);
    await conn.query(`USE ${database}`);
    await loadTpch('mysql', (sql) => conn.query(sql));
    // A foreign-key index (TPC-H allows them): without it MariaDB runs q20's and q17's correlated subqueries
    // as a lineitem scan per outer row, tens of seconds on 2 cores.
    await conn.query('CREATE INDEX lineitem_part_supp ON lineitem (l_partkey, l_suppkey)');
    for (const t of ['lineitem', 'orders', 'customer', 'part', 'partsupp', 'supplier', 'nation', 'region'])
      await conn.query(`ANALYZE TABLE ${t}`);
  } finally {
    await conn.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    database,
    drop: async () => {
      const c = await mysql.createConnection(baseUrl);
      await c.query(`DROP DATABASE IF EXISTS ${database}`);
      await c.end();
    },
  };
};
