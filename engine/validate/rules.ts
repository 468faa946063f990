import type { LintRule } from './rule';
import { attributeValueRule, fidelityValidRule, retryBudgetRule, typeKnownRule, unknownAttributeRule } from './rules/attributes';
import { pipeHidesStatusRule, tokenGateLiesRule } from './rules/commands';
import { contextKeyUnwrittenRule, outcomeValueRule } from './rules/data-flow';
import { ambiguousCommandVariableRule } from './rules/command-variables';
import { dollarEscapeRule } from './rules/dollar-escape';
import { dotFileExistsRule, folderRequiresDotFileRule, mustWritePlacementRule, promptOnLlmNodesRule, questionTypeEdgesRule, toolCommandRequiresToolHandlerRule } from './rules/handlers';
import { deadConditionalEdgeRule, failRoutedToExitRule, goalGateHasRetryRule, retryTargetExistsRule, staleLabelCollisionRule } from './rules/routing';
import { edgeTargetExistsRule, exitNoOutgoingRule, reachabilityRule, startNoIncomingRule, startNodeRule, terminalNodeRule } from './rules/structure';
import { conditionSyntaxRule, stylesheetSyntaxRule } from './rules/syntax';
import { acyclicGraphRule, cycleNoConditionalExitRule, cycleNoDeterministicExitRule, loopRestartWithoutFeedbackRule } from './rules/topology';

/** Every built-in rule: the canonical §7.2 thirteen first, then the ledger's, then ours. docs/rules.md follows this order. */
export const builtinRules: readonly LintRule[] = [
  // canonical §7.2
  startNodeRule,
  terminalNodeRule,
  reachabilityRule,
  edgeTargetExistsRule,
  startNoIncomingRule,
  exitNoOutgoingRule,
  conditionSyntaxRule,
  stylesheetSyntaxRule,
  typeKnownRule,
  fidelityValidRule,
  retryTargetExistsRule,
  goalGateHasRetryRule,
  promptOnLlmNodesRule,
  // reference ledger
  retryBudgetRule,
  toolCommandRequiresToolHandlerRule,
  deadConditionalEdgeRule,
  staleLabelCollisionRule,
  acyclicGraphRule,
  cycleNoConditionalExitRule,
  cycleNoDeterministicExitRule,
  failRoutedToExitRule,
  pipeHidesStatusRule,
  tokenGateLiesRule,
  // ours
  unknownAttributeRule,
  attributeValueRule,
  mustWritePlacementRule,
  loopRestartWithoutFeedbackRule,
  folderRequiresDotFileRule,
  dotFileExistsRule,
  outcomeValueRule,
  contextKeyUnwrittenRule,
  ambiguousCommandVariableRule,
  dollarEscapeRule,
  questionTypeEdgesRule,
];
