import type { LintRule } from './rule';
import { startNodeRule, terminalNodeRule } from './rules/structure';

export const builtinRules: readonly LintRule[] = [startNodeRule, terminalNodeRule];
