import type { RewriteRule } from '../rule.ts';
import { simplifyBooleans } from './simplify-booleans.ts';

/**
 * Every rule, in the order the engine tries them. Adding a rule is one file in this folder plus one line
 * here; `index.test.ts` fails when a rule file is not listed. Cheap clean-ups come first so later rules see
 * simpler predicates.
 */
export const RULES: readonly RewriteRule[] = [simplifyBooleans];
