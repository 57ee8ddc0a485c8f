import { startSnowflakeStandin } from '../../test/support/snowflake-standin.ts';

/** The stand-in in a process of its own, so the bench measures the adapter's memory alone. */
const s = await startSnowflakeStandin({
  port: Number(process.argv[2] ?? 56220),
  firstRows: 1000,
  chunkRows: 20_000,
});
process.send?.({
  url: s.url,
  account: s.account,
  user: s.user,
  password: s.password,
  database: s.database,
  schema: s.schema,
});
process.on('disconnect', () => {
  void s.close().then(() => process.exit(0));
});
