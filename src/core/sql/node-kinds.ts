/**
 * The node kinds of the SQL library's tree (its `Expression` union, @polyglot-sql/sdk) split in two: the kinds a
 * read-only query may hold anywhere, and the rest. The tree check of the guard (read-only.ts) is an allowlist:
 * a node whose kind is one of the library's and not in `QUERY_NODE_KINDS` is refused, naming the kind.
 * test/security/node-kinds.test.ts reads the union from the library's type definitions and fails when a kind
 * is in neither list (a library upgrade added one: decide where it belongs before it can pass) or in both.
 *
 * Refused: statements and their clauses (DML, DDL, session, transaction, grants, COPY/PUT/EXPORT, procedural
 * blocks), table and column properties and constraints, `RETURNING` / `ON CONFLICT` / `INTO`, things that read
 * files or stages or run scripts (`@stage`, `read_csv`/`read_parquet` nodes, Hive `TRANSFORM … USING`), that
 * advance a sequence (`NEXT VALUE FOR`), read session parameters, or call models (BigQuery ML). Calls by name
 * are checked again on the tokens against the dialect's function allowlist (allowlist.ts), whatever kind the
 * library gives them.
 */

/** The kinds a read-only query may hold: expressions, functions, clauses of SELECT. */
export const QUERY_NODE_KINDS: ReadonlySet<string> = new Set(
  `
a_i_agg a_i_classify abs acos add add_months adjacent aggregate_function alias aliases all and annotated
anonymous anonymous_agg_func any any_value apply approx_count_distinct approx_distinct approx_percentile
approx_percentile_estimate approx_quantile approx_quantiles approx_top_k approx_top_k_accumulate
approx_top_k_combine approx_top_k_estimate approx_top_sum arg_max arg_min array array_agg array_all array_any
array_append array_compact array_concat array_concat_agg array_construct_compact array_contained_by
array_contains array_contains_all array_distinct array_except array_filter array_flatten array_func
array_intersect array_join array_length array_overlaps array_position array_prepend array_remove array_reverse
array_size array_slice array_sort array_sum array_to_string array_transform array_union array_unique_agg
array_zip ascii asin at_index at_time_zone atan atan2 avg base64_decode_binary base64_decode_string
base64_encode between bitwise_and bitwise_and_agg bitwise_count bitwise_left_shift bitwise_not bitwise_or
bitwise_or_agg bitwise_right_shift bitwise_xor bitwise_xor_agg bool_xor_agg booland boolean boolor
braced_wildcard byte_length byte_string cardinality case cast cast_to_str_type cbrt ceil changes char_func
check_json check_xml chr cluster_by coalesce collation column column_prefix columns combined_agg_func
combined_parameterized_agg comprehension compress concat concat_ws connect connect_by_root contains convert
convert_timezone convert_to_charset corr cos cosine_distance count count_if covar_pop covar_samp cte cube
cume_dist current_date current_datetime current_schema current_schemas current_time current_timestamp
current_timestamp_l_t_z current_user d_pipe data_type date date_add date_bin date_diff date_format
date_from_parts date_from_unix_date date_str_to_date date_sub date_to_date_str date_to_di date_trunc datetime
datetime_add datetime_diff datetime_sub datetime_trunc day day_of_month day_of_week day_of_week_iso
day_of_year dayname decode decode_case decompress_binary decompress_string decrypt decrypt_raw degrees
dense_rank di_to_date distribute_by div dot dot_product element_at elt encode encrypt encrypt_raw ends_with
epoch epoch_ms eq equal_null euclidean_distance except exists exp explode explode_outer
exploding_generate_series extends_left extends_right extract farm_fingerprint fetch filter first first_value
float64 floor format format_date format_phrase from from_base from_time_zone from_unixtime function gap_fill
generate generate_date_array generate_series generate_timestamp_array get get_extract getbit glob greatest
group group_by group_concat grouping grouping_id grouping_sets gt gte hash_agg having having_max hex
hex_encode hex_string_expr hint historical_data hll hour i_like identifier if_func if_null in index_table_hint
initcap input_output_format int64 int_div intersect interval interval_op interval_span introducer is is_false
is_inf is_json is_nan is_null is_true j_s_o_n j_s_o_n_array j_s_o_n_array_agg j_s_o_n_array_append
j_s_o_n_array_contains j_s_o_n_array_insert j_s_o_n_b_contains j_s_o_n_b_contains_all_top_keys
j_s_o_n_b_contains_any_top_keys j_s_o_n_b_delete_at_path j_s_o_n_b_exists j_s_o_n_b_extract
j_s_o_n_b_extract_scalar j_s_o_n_b_object_agg j_s_o_n_bool j_s_o_n_cast j_s_o_n_exists j_s_o_n_extract
j_s_o_n_extract_array j_s_o_n_extract_quote j_s_o_n_extract_scalar j_s_o_n_format j_s_o_n_key_value
j_s_o_n_keys j_s_o_n_keys_at_depth j_s_o_n_object j_s_o_n_object_agg j_s_o_n_path j_s_o_n_path_filter
j_s_o_n_path_key j_s_o_n_path_recursive j_s_o_n_path_root j_s_o_n_path_script j_s_o_n_path_selector
j_s_o_n_path_slice j_s_o_n_path_subscript j_s_o_n_path_union j_s_o_n_remove j_s_o_n_schema j_s_o_n_set
j_s_o_n_strip_nulls j_s_o_n_table j_s_o_n_type j_s_o_n_value j_s_o_n_value_array jarowinkler_similarity join
join_hint joined_table json_array json_array_agg json_array_length json_extract json_extract_path
json_extract_scalar json_insert json_keys json_merge_patch json_object json_object_agg json_query json_remove
json_set json_type json_value l_trim lag lambda last last_day last_value lateral lateral_view lead least left
length levenshtein like limit limit_options list list_agg literal ln localtime localtimestamp log logical_and
logical_or lower lower_hex lpad lt lte m_d5_digest m_d5_number_lower64 m_d5_number_upper64 make_date
make_interval make_timestamp manhattan_distance map map_cat map_concat map_contains_key map_delete
map_from_arrays map_from_entries map_func map_insert map_keys map_pick map_values match match_against
match_recognize match_recognize_measure max median member_of method_call min minhash minute mod mod_func mode
month monthname months_between mul n_tile named_argument named_struct neg neq next_day normal normalize not
nth_value ntile null null_if null_safe_eq null_safe_neq nullif number_to_str nvl nvl2 object_agg
object_identifier object_insert offset on_condition open_j_s_o_n operator or order_by ordered over
overflow_truncate_behavior overlaps overlay pad parameter parameterized_agg paren parse_datetime parse_ip
parse_j_s_o_n parse_json parse_time parse_url partition partition_by_range_property_dynamic percent_rank
percentile percentile_cont percentile_disc period_for_system_time_constraint pi pipe_operator pivot
pivot_alias pivot_any placeholder position power pre_where previous_day prior pseudo_type pseudocolumn qualify
quantile quarter query_option r_trim radians rand randn random randstr range_bucket range_n rank raw
recursive_with_search reduce regexp_count regexp_extract regexp_extract_all regexp_full_match regexp_i_like
regexp_instr regexp_like regexp_replace regexp_split regr_avgx regr_avgy regr_count regr_intercept regr_r2
regr_slope regr_sxx regr_sxy regr_syy regr_valx regr_valy repeat replace reverse right rollup round row_number
rows_from rpad s_h_a s_h_a1_digest s_h_a2 s_h_a2_digest safe_add safe_cast safe_divide safe_multiply
safe_subtract scope_resolution search search_ip second select session_user set_operation sign similar_to sin
skewness slice sort_array sort_by soundex split split_part sql_comment sqrt st_distance st_point standard_hash
star star_map starts_with stddev stddev_pop stddev_samp str_position str_to_date str_to_map str_to_time
str_to_unix string_agg string_func string_to_array struct struct_extract struct_func stuff sub subquery
subscript substring substring_index sum sum_if summarize systimestamp table table_alias table_argument
table_from_rows table_sample tan time time_add time_diff time_from_parts time_slice time_str_to_date
time_str_to_time time_str_to_unix time_sub time_to_str time_to_unix time_trunc time_unit timestamp
timestamp_add timestamp_diff timestamp_from_parts timestamp_sub timestamp_trunc timestamp_tz_from_parts
to_array to_binary to_boolean to_char to_date to_decfloat to_double to_json to_map to_number to_timestamp
transform transform_keys transform_values translate translate_characters trim trunc_func
try_base64_decode_binary try_base64_decode_string try_cast try_to_decfloat ts_match ts_or_di_to_di
ts_or_ds_add ts_or_ds_diff ts_or_ds_to_date ts_or_ds_to_datetime ts_or_ds_to_time ts_or_ds_to_timestamp tuple
typeof unhex unicode unicode_string uniform union unix_date unix_micros unix_millis unix_seconds
unix_timestamp unix_to_str unix_to_time unix_to_time_str unnest unpivot unpivot_columns upper utc_time
utc_timestamp uuid values var var_map var_pop var_samp variadic variance version week week_of_year when whens
where width_bucket window window_function window_spec with with_fill with_operator with_table_hint
within_group x_m_l_element x_m_l_get x_m_l_key_value_option x_m_l_table xml_namespace xor year year_of_week
year_of_week_iso zipf
`
    .trim()
    .split(/\s+/),
);

/** The library's other kinds: refused wherever they stand. */
export const REFUSED_NODE_KINDS: ReadonlySet<string> = new Set(
  `
add_partition algorithm_property allowed_values_property alter_column alter_index alter_sequence alter_session
alter_set alter_sort_key alter_table alter_view analyze analyze_delete analyze_histogram
analyze_list_chained_rows analyze_sample analyze_statistics analyze_validate analyze_with
assume_column_constraint attach attach_option auto_increment_column_constraint auto_increment_property
auto_refresh_property backup_property block_compression_property build_property cache
case_specific_column_constraint character_set_column_constraint character_set_property check_column_constraint
checksum_property clone cluster_by_columns_property clustered_by_property collate_property column_constraint
column_def column_position command comment comment_column_constraint commit compress_column_constraint
computed_column_constraint conditional_insert constraint copy copy_parameter create_database create_function
create_index create_procedure create_schema create_sequence create_synonym create_table create_task
create_trigger create_type create_view credentials credentials_property data_blocksize_property
data_deletion_property date_format_column_constraint declare declare_item default_column_constraint
definer_property delete describe detach dict_property dict_range directory dist_key_property
dist_style_property distributed_by_property drop_database drop_function drop_index drop_namespace
drop_partition drop_procedure drop_schema drop_sequence drop_table drop_trigger drop_type drop_view
duplicate_key_property encode_property engine_property enviroment_property ephemeral_column_constraint execute
execute_as_property export external_property fallback_property features_at_time file_format_property
flashback_table for_in foreign_key freespace_property function_emits generate_embedding
generated_as_identity_column_constraint generated_as_row_column_constraint grant grant_principal
grant_privilege heredoc in_out_column_constraint include_property index index_column_constraint
index_constraint_option index_parameters inherits_property input_model_property insert install into_clause
isolated_loading_property j_s_o_n_column_def journal_property kill language_property like_property load_data
location_property lock lock_property locking_property locking_statement log_property m_l_forecast
m_l_translate masking_policy_column_constraint materialized_property merge merge_block_ratio_property
merge_tree_t_t_l merge_tree_t_t_l_action model_attribute multitable_inserts next_value_for
not_null_column_constraint on_cluster on_commit_property on_conflict on_property opclass
open_j_s_o_n_column_def options_property output_model_property partition_bound_spec partition_by_list_property
partition_by_property partition_by_range_property partition_by_truncate partition_list partition_range
partitioned_by_bucket partitioned_by_property partitioned_of_property path_column_constraint pragma predict
prepare primary_key primary_key_column_constraint projection_def properties property property_e_q put
query_band query_transform read_c_s_v read_parquet reference refresh refresh_trigger_property
remote_with_connection_model_property rename_column replace_partition return_stmt returning returns_property
revoke rollback rollup_property row_format_delimited_property row_format_property row_format_serde_property
sample_property schema schema_comment_property security_property semantic_view sequence sequence_properties
serde_properties session_parameter set set_config_property set_item set_property set_statement
settings_property sharing_property show sort_key_property split_table sql_read_write_property
sql_security_property stability_property stage_reference storage_handler_property stream tag tags
temporary_property to_file to_table_property transaction transform_model_property transient_property truncate
truncate_table try_catch uncache undrop unique_column_constraint unique_key_property update use
user_defined_function using_data using_template_property vector_search view_attribute_property
volatile_property watermark_column_constraint with_data_property with_journal_table_property
with_procedure_options with_schema_binding_property with_system_versioning_property
`
    .trim()
    .split(/\s+/),
);
