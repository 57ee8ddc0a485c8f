import type { RewriteRule } from '../rule.ts';
import { correlatedAggregateToJoin } from './correlated-aggregate-to-join.ts';
import { countToExists } from './count-to-exists.ts';
import { ctePredicatePushdown } from './cte-predicate-pushdown.ts';
import { dateTextPrefix } from './date-text-prefix.ts';
import { dedupeInList } from './dedupe-in-list.ts';
import { derivedTableMerge } from './derived-table-merge.ts';
import { derivedJoinToSemiJoin } from './derived-join-to-semi-join.ts';
import { joinElimination } from './join-elimination.ts';
import { orToIn } from './or-to-in.ts';
import { outerJoinSimplification } from './outer-join-simplification.ts';
import { predicatePushdown } from './predicate-pushdown.ts';
import { redundantDistinct } from './redundant-distinct.ts';
import { selfJoinElimination } from './self-join-elimination.ts';
import { sargableDates } from './sargable-dates.ts';
import { simplifyBooleans } from './simplify-booleans.ts';
import { subqueryOrderBy } from './subquery-order-by.ts';
import { unionToUnionAll } from './union-to-union-all.ts';
import { unionPredicatePushdown } from './union-predicate-pushdown.ts';
import { unusedColumns } from './unused-columns.ts';
import { unusedCtes } from './unused-ctes.ts';

/**
 * Every rule, in the order the engine tries them. Adding a rule is one file in this folder plus one line
 * here; `test/rewrite/rules-registered.test.ts` fails when a rule file is not listed. Cheap clean-ups come
 * first so later rules see simpler predicates.
 */
export const RULES: readonly RewriteRule[] = [
  simplifyBooleans,
  orToIn,
  dedupeInList,
  countToExists,
  correlatedAggregateToJoin,
  subqueryOrderBy,
  unusedCtes,
  redundantDistinct,
  sargableDates,
  dateTextPrefix,
  predicatePushdown,
  ctePredicatePushdown,
  unionPredicatePushdown,
  unionToUnionAll,
  outerJoinSimplification,
  joinElimination,
  derivedJoinToSemiJoin,
  selfJoinElimination,
  unusedColumns,
  // Last: the pushdowns and pruning above name their own change before the derived table disappears.
  derivedTableMerge,
];
