import type { SqlDialect } from './dialect.ts';

/**
 * What a query may call and read, per dialect: an allowlist. A function is admitted only when its name is
 * here (compared lower case) and it is written bare or qualified by the dialect's own system schema
 * (`pg_catalog.upper`); everything else — server files, other sessions, locks, settings, sequences, large
 * objects, sleeping, user-defined functions — is refused by name. Names that only change the session
 * (`set_config`), sleep or burn CPU (`pg_sleep`, `sleep`, `benchmark`) are deliberately absent.
 *
 * Type names that take parameters (`decimal(15,2)`) are listed too: after `AS` or `::` they are not calls,
 * but `CONVERT(x, DECIMAL(10,2))` and the like write them in call position.
 */

const words = (s: string): string[] => s.split(/\s+/).filter((w) => w !== '');

/** Written the same in every dialect: SQL-standard scalar functions, aggregates, windows, types. */
const COMMON = words(`
  abs ceil ceiling floor round trunc truncate sign sqrt exp ln log log10 log2 power pow mod div
  sin cos tan asin acos atan atan2 cot degrees radians pi greatest least nullif coalesce ifnull nvl
  cast try_cast safe_cast convert extract date_part date_trunc
  lower upper length char_length character_length octet_length bit_length substring substr trim ltrim rtrim
  btrim lpad rpad replace reverse repeat concat concat_ws position strpos instr left right split_part
  initcap ascii chr char translate starts_with ends_with regexp_replace regexp_substr regexp_like
  regexp_count regexp_instr md5 sha1 sha2 sha256 to_hex format overlay
  count sum avg min max stddev stddev_pop stddev_samp variance var_pop var_samp corr covar_pop covar_samp
  bool_and bool_or every string_agg array_agg listagg group_concat any_value approx_count_distinct
  percentile_cont percentile_disc median mode regr_slope regr_intercept regr_count regr_r2 regr_avgx
  regr_avgy regr_sxx regr_syy regr_sxy bit_and bit_or bit_xor count_if countif
  row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
  grouping grouping_id
  current_date current_time current_timestamp localtime localtimestamp now
  date time timestamp interval year month day hour minute second quarter week dayofweek dayofyear
  dayofmonth weekday last_day date_add date_sub datediff date_diff dateadd timestampdiff timestampadd
  to_date to_char to_timestamp to_number
  decimal numeric varchar character char int integer smallint bigint tinyint float real double
  boolean bool text binary varbinary number string bytes bit
  case if iif nvl2 decode isnull isnotnull
  json_extract json_array json_object json_value json_query
  array unnest struct row generate_series range rename exclude columns
  json_type json_extract_path_text
`);

const POSTGRES = words(`
  cbrt factorial gcd lcm width_bucket random scale min_scale trim_scale
  to_ascii quote_ident quote_literal quote_nullable format unistr normalize
  regexp_match regexp_matches regexp_split_to_array regexp_split_to_table string_to_array
  string_to_table array_to_string array_length array_lower array_upper array_ndims array_dims
  array_position array_positions array_append array_prepend array_cat array_remove array_replace
  cardinality array_fill
  age clock_timestamp statement_timestamp transaction_timestamp timeofday date_bin make_date make_time
  make_timestamp make_timestamptz make_interval justify_days justify_hours justify_interval isfinite
  to_json to_jsonb json_build_object jsonb_build_object json_build_array jsonb_build_array json_agg
  jsonb_agg json_object_agg jsonb_object_agg json_array_length jsonb_array_length json_each jsonb_each
  json_each_text jsonb_each_text json_extract_path jsonb_extract_path json_extract_path_text
  jsonb_extract_path_text json_object_keys jsonb_object_keys json_array_elements jsonb_array_elements
  json_array_elements_text jsonb_array_elements_text json_typeof jsonb_typeof json_strip_nulls
  jsonb_strip_nulls jsonb_set jsonb_insert jsonb_pretty jsonb_path_query jsonb_path_exists
  jsonb_path_match jsonb_path_query_array jsonb_path_query_first json_populate_record
  json_to_record jsonb_to_record json_to_recordset jsonb_to_recordset row_to_json array_to_json
  encode decode convert_from convert_to bit_count get_byte get_bit sha224 sha384 sha512
  num_nulls num_nonnulls int2 int4 int8 float4 float8 timestamptz timetz bpchar
  bool_and bool_or xmlagg
`);

const MYSQL = words(`
  crc32 conv bin oct hex unhex rand format lcase ucase locate mid field find_in_set elt
  make_set export_set soundex space strcmp quote insert char_length weight_string
  adddate addtime subdate subtime curdate curtime sysdate utc_date utc_time utc_timestamp
  date_format str_to_date from_days to_days to_seconds from_unixtime unix_timestamp makedate maketime
  monthname dayname weekofyear yearweek period_add period_diff sec_to_time time_to_sec time_format
  get_format microsecond convert_tz timediff
  json_contains json_contains_path json_keys json_length json_type json_valid json_unquote json_quote
  json_depth json_search json_arrayagg json_objectagg json_merge_patch json_merge_preserve json_overlaps
  json_pretty json_table
  signed unsigned datetime substring_index
`);

const DUCKDB = words(`
  list_value list_aggregate list_sort list_reverse_sort list_distinct list_contains list_has
  list_concat list_extract list_slice list_transform list_filter list_reduce len array_length
  array_contains array_concat array_slice array_extract list string_split str_split regexp_full_match
  regexp_matches regexp_extract regexp_extract_all regexp_split_to_array contains prefix suffix
  strftime strptime epoch epoch_ms make_date make_time make_timestamp date_diff datesub dayname
  monthname yearweek isodow isoyear era millisecond microsecond nanosecond to_days to_hours to_minutes
  to_seconds to_months to_years to_weeks to_milliseconds to_microseconds
  arg_min arg_max argmin argmax min_by max_by product fsum favg kurtosis skewness entropy histogram
  quantile quantile_cont quantile_disc approx_quantile reservoir_quantile list
  struct_pack struct_extract map map_extract map_keys map_values cardinality
  json to_json json_extract_string json_array_length json_keys json_type json_valid json_structure
  json_transform hash hugeint ubigint uinteger usmallint utinyint uhugeint blob
  ifnull bit_count gamma lgamma isnan isinf isfinite even nextafter xor printf bar
  typeof
`);

const BIGQUERY = words(`
  safe_divide safe_multiply safe_add safe_subtract safe_negate ieee_divide div
  format_date format_datetime format_time format_timestamp parse_date parse_datetime parse_time
  parse_timestamp current_datetime datetime datetime_add datetime_sub datetime_diff datetime_trunc
  time_add time_sub time_diff time_trunc timestamp_add timestamp_sub timestamp_diff timestamp_trunc
  timestamp_seconds timestamp_millis timestamp_micros unix_seconds unix_millis unix_micros unix_date
  date_from_unix_date last_day generate_date_array generate_array generate_timestamp_array
  array_concat array_length array_reverse array_to_string array_agg array_concat_agg
  split regexp_extract regexp_extract_all regexp_contains byte_length code_points_to_string
  to_code_points normalize normalize_and_casefold soundex farm_fingerprint to_base64 from_base64
  to_base32 from_base32 to_json_string json_extract_scalar json_extract_array json_query_array
  json_value_array parse_json to_json string int64 float64 bool lax_int64 lax_string lax_float64 lax_bool
  approx_quantiles approx_top_count approx_top_sum logical_and logical_or
  rand range_bucket offset ordinal safe_offset safe_ordinal json_type
`);

const SNOWFLAKE = words(`
  iff zeroifnull nullifzero equal_null div0 div0null square
  charindex contains editdistance endswith startswith split split_to_table strtok strtok_to_array
  regexp_substr_all rlike ilike collate
  date_from_parts time_from_parts timestamp_from_parts timestamp_ntz_from_parts dateadd datediff
  timeadd timediff timestampadd timestampdiff date_trunc dayname monthname yearofweek weekofyear
  next_day previous_day add_months months_between to_time to_timestamp_ntz to_timestamp_ltz
  to_timestamp_tz to_varchar to_decimal to_numeric to_double to_boolean try_to_number try_to_date
  try_to_timestamp try_to_decimal try_to_double try_to_boolean
  parse_json try_parse_json to_variant to_object to_array array_construct array_size array_contains
  array_slice array_to_string array_append array_cat array_compact array_distinct array_flatten
  array_insert array_intersection array_position array_prepend array_sort object_construct
  object_keys get get_path flatten lateral as_varchar as_number as_integer as_double typeof
  hll approx_percentile approx_top_k kurtosis skew booland_agg boolor_agg objectagg arrayagg
  ratio_to_report conditional_change_event conditional_true_event
  generator seq1 seq2 seq4 seq8 uniform normal randstr random number
  yearofweekiso weekiso dayofweekiso convert_timezone json_extract_path_text dayofweek dayofyear
`);

const SYSTEM_FUNCTION_SCHEMA: Record<SqlDialect, ReadonlySet<string>> = {
  postgres: new Set(['pg_catalog']),
  duckdb: new Set(['main', 'pg_catalog']),
  mysql: new Set(),
  bigquery: new Set(['safe']),
  snowflake: new Set(),
};

/** Built-ins whose name has a namespace (BigQuery's `NET.HOST`, `HLL_COUNT.MERGE`), compared whole. */
const NAMESPACED: Partial<Record<SqlDialect, ReadonlySet<string>>> = {
  bigquery: new Set(
    words(`
      net.host net.reg_domain net.public_suffix net.ip_from_string net.safe_ip_from_string net.ip_to_string
      net.ipv4_from_int64 net.ipv4_to_int64 net.ip_net_mask net.ip_trunc
      hll_count.init hll_count.merge hll_count.merge_partial hll_count.extract
    `),
  ),
};

const FUNCTIONS: Record<SqlDialect, ReadonlySet<string>> = {
  postgres: new Set([...COMMON, ...POSTGRES]),
  mysql: new Set([...COMMON, ...MYSQL]),
  duckdb: new Set([...COMMON, ...POSTGRES, ...DUCKDB]),
  bigquery: new Set([...COMMON, ...BIGQUERY]),
  snowflake: new Set([...COMMON, ...SNOWFLAKE]),
};

/** The allowlisted function names of a dialect (lower case). */
export const allowedFunctions = (dialect: SqlDialect): ReadonlySet<string> => FUNCTIONS[dialect];

export type FunctionVerdict = { ok: true } | { ok: false; name: string };

/**
 * Whether a call written as `parts` (its dotted name, each part as written, quotes removed) is an
 * allowlisted function of the dialect. The identity is the lower-cased name plus its qualification; only a
 * bare name or one qualified by the dialect's system schema can be a built-in analyst function.
 */
export const checkFunction = (parts: readonly string[], dialect: SqlDialect): FunctionVerdict => {
  const lower = parts.map((p) => p.toLowerCase());
  const name = lower[lower.length - 1] ?? '';
  const written = parts.join('.');
  if (lower.length > 2) return { ok: false, name: written };
  if (lower.length === 2 && NAMESPACED[dialect]?.has(lower.join('.'))) return { ok: true };
  if (lower.length === 2 && !SYSTEM_FUNCTION_SCHEMA[dialect].has(lower[0] as string)) {
    return { ok: false, name: written };
  }
  return FUNCTIONS[dialect].has(name) ? { ok: true } : { ok: false, name: written };
};

/**
 * Schemas that hold the server's own state (users and password hashes, settings, other sessions, grants),
 * per dialect, with the relations in them an analyst may read (metadata about tables and columns only).
 * Any other relation in these schemas is refused, in any spelling.
 */
const SYSTEM_SCHEMAS: Record<SqlDialect, Readonly<Record<string, ReadonlySet<string>>>> = {
  postgres: {
    pg_catalog: new Set(['pg_tables', 'pg_views', 'pg_namespace', 'pg_class', 'pg_attribute', 'pg_type']),
    information_schema: new Set([
      'tables',
      'columns',
      'schemata',
      'views',
      'key_column_usage',
      'table_constraints',
    ]),
    pg_toast: new Set(),
  },
  mysql: {
    mysql: new Set(),
    performance_schema: new Set(),
    sys: new Set(),
    information_schema: new Set([
      'tables',
      'columns',
      'schemata',
      'views',
      'key_column_usage',
      'table_constraints',
      'statistics',
    ]),
  },
  duckdb: {
    pg_catalog: new Set(['pg_tables', 'pg_views', 'pg_namespace', 'pg_class', 'pg_attribute', 'pg_type']),
    information_schema: new Set([
      'tables',
      'columns',
      'schemata',
      'views',
      'key_column_usage',
      'table_constraints',
    ]),
  },
  bigquery: {
    information_schema: new Set([
      'tables',
      'columns',
      'schemata',
      'views',
      'table_options',
      'column_field_paths',
      'partitions',
    ]),
  },
  snowflake: {
    information_schema: new Set(['tables', 'columns', 'schemata', 'views', 'table_constraints']),
    account_usage: new Set(),
  },
};

export type RelationVerdict = { ok: true } | { ok: false; name: string };

/**
 * Whether a dotted name (a relation or a column of one) reaches into a system schema beyond its allowlisted
 * relations. On PostgreSQL `pg_catalog` is searched first, so a bare relation named `pg_…` is `pg_catalog.pg_…`:
 * pass `bareRelation: true` for names known to stand in relation position.
 */
export const checkRelation = (
  parts: readonly string[],
  dialect: SqlDialect,
  bareRelation = false,
): RelationVerdict => {
  const lower = parts.map((p) => p.toLowerCase());
  const systems = SYSTEM_SCHEMAS[dialect];
  for (let i = 0; i < lower.length - 1; i++) {
    const allowed = systems[lower[i] as string];
    if (allowed && !allowed.has(lower[i + 1] as string)) return { ok: false, name: parts.join('.') };
  }
  if (bareRelation && lower.length === 1 && (dialect === 'postgres' || dialect === 'duckdb')) {
    const n = lower[0] as string;
    if (n.startsWith('pg_') && !(systems.pg_catalog?.has(n) ?? false))
      return { ok: false, name: parts[0] as string };
  }
  return { ok: true };
};
