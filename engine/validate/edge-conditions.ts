import type { Clause, Condition } from '../conditions/condition';
import { parseCondition } from '../conditions/condition';
import type { Attribute, GraphEdge } from '../model/graph';

export interface EdgeCondition {
  readonly attribute: Attribute;
  readonly condition: Condition;
}

/** The edge's parsed, non-empty condition; undefined when absent, empty or malformed (condition_syntax reports those). */
export function edgeCondition(edge: GraphEdge): EdgeCondition | undefined {
  const attribute = edge.attributes.get('condition');
  if (!attribute || attribute.value.trim() === '') return undefined;
  const parsed = parseCondition(attribute.value);
  return parsed.ok ? { attribute, condition: parsed.condition } : undefined;
}

export function outcomeClauses(condition: Condition): Clause[] {
  return condition.clauses.filter((clause) => clause.key.kind === 'outcome');
}

/** Whether the condition's outcome clauses all hold for a node that finished with `status` (compared exactly, as at run time). */
export function admitsOutcome(condition: Condition, status: string): boolean {
  return outcomeClauses(condition).every((clause) => holdsFor(clause, status));
}

export function holdsFor(clause: Clause, status: string): boolean {
  return (clause.operator === '=') === (clause.literal === status);
}

/** Clauses that read `tool.last_line`, written `context.tool.last_line` or bare. */
export function lastLineClauses(condition: Condition): Clause[] {
  return condition.clauses.filter((clause) => (clause.key.kind === 'context' || clause.key.kind === 'bare') && clause.key.path === 'tool.last_line');
}
