import pg from 'pg';
import { loadTpch, randomSchemaName } from './load-tpch.ts';

/**
 * A fresh schema `sg_<random>` holding the TPC-H corpus, and a URL whose connections see only it
 * (search_path through the startup `options`). `drop` removes it.
 */
export const createPgTpchSchema = async (
  baseUrl: string,
): Promise<{ url: string; schema: string; drop: () => Promise<void> }> => {
  const schema = randomSchemaName();
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`SET search_path = ${schema}`);
    await loadTpch('postgres', (sql) => client.query(sql));
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    schema,
    drop: async () => {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
};

/** Runs one statement on a PostgreSQL server over a connection of its own (schema set-up and clean-up). */
export const adminQuery = async (url: string, sql: string): Promise<void> => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
};
