import { AGGREGATE_RULES, APPROXIMATE } from './aggregates.ts';
import { ARRAYS } from './arrays.ts';
import { CONDITIONAL } from './conditional.ts';
import { DATE_ARITHMETIC } from './date-arithmetic.ts';
import { DATE_DIFFERENCE } from './date-difference.ts';
import { DATE_FORMATTING } from './date-formatting.ts';
import { DATE_PARTS } from './date-parts.ts';
import { DATE_TRUNCATION } from './date-truncation.ts';
import { DIVISION } from './division.ts';
import { REGEX } from './regex.ts';
import { SEMI_STRUCTURED } from './semi-structured.ts';
import { STRINGS } from './strings.ts';
import { TIME_ZONES } from './time-zones.ts';
import { FAMILIES } from './types.ts';
import type { Family, LocalDialect, LocalRule, RuleSet } from './types.ts';
import type { RuleIndex } from './walk.ts';

/** Every family's rules. Adding a family is one file and one line here (test/dialects checks each rule has cases). */
const RULE_SETS: readonly RuleSet[] = [
  DATE_ARITHMETIC,
  DATE_TRUNCATION,
  DATE_DIFFERENCE,
  DATE_PARTS,
  DATE_FORMATTING,
  TIME_ZONES,
  DIVISION,
  STRINGS,
  REGEX,
  CONDITIONAL,
  AGGREGATE_RULES,
  APPROXIMATE,
  ARRAYS,
  SEMI_STRUCTURED,
];

export const LOCAL_DIALECTS: readonly LocalDialect[] = ['bigquery', 'snowflake', 'postgres'];

export const isLocalDialect = (d: string): d is LocalDialect =>
  (LOCAL_DIALECTS as readonly string[]).includes(d);

export const rulesOf = (d: LocalDialect): readonly LocalRule[] => RULE_SETS.flatMap((s) => s[d]);

const indexes = new Map<LocalDialect, RuleIndex>();

/** The dialect's rules by call name and by node kind; two rules claiming one name or kind is a bug. */
export const ruleIndex = (d: LocalDialect): RuleIndex => {
  const cached = indexes.get(d);
  if (cached) return cached;
  const byName = new Map<string, LocalRule>();
  const byKind = new Map<string, LocalRule>();
  for (const rule of rulesOf(d)) {
    for (const n of rule.names ?? []) {
      if (byName.has(n) && byName.get(n) !== rule) throw new Error(`two ${d} local-mode rules for ${n}`);
      byName.set(n, rule);
    }
    for (const k of rule.kinds ?? []) {
      if (byKind.has(k) && byKind.get(k) !== rule)
        throw new Error(`two ${d} local-mode rules for the node kind ${k}`);
      byKind.set(k, rule);
    }
  }
  const index = { byName, byKind };
  indexes.set(d, index);
  return index;
};

export type FamilySupport = {
  readonly family: Family;
  /** The functions of the family local mode runs in this dialect. */
  readonly functions: readonly string[];
  /** Those that local mode corrects (the SQL library alone would translate them wrongly or not at all). */
  readonly corrected: readonly string[];
};

const FUNCTION_NAME = /^[A-Z][A-Z0-9_]*(\.[A-Z][A-Z0-9_]*)?$/;

/** What local mode supports in a dialect, family by family, read from the rules themselves. */
export const localFamilies = (d: LocalDialect): FamilySupport[] =>
  FAMILIES.map((family) => {
    const rules = rulesOf(d).filter((r) => r.family === family);
    const names = (rs: readonly LocalRule[]) =>
      [...new Set(rs.flatMap((r) => (r.names ?? []).filter((n) => FUNCTION_NAME.test(n))))].sort();
    return {
      family,
      functions: names(rules),
      corrected: names(rules.filter((r) => r.translate !== undefined)),
    };
  }).filter((f) => f.functions.length > 0);
