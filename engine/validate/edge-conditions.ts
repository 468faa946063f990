import type { Clause, Condition } from '../conditions/condition';
import { parseCondition } from '../conditions/condition';
import type { Attribute, GraphEdge } from '../model/graph';

export interface EdgeCondition {
  readonly attribute: Attribute;
  readonly condition: Condition;
}

// Several rules read every edge's condition in one lint; each attribute is parsed once.
const parsedConditions = new WeakMap<Attribute, EdgeCondition | undefined>();

/** The edge's parsed, non-empty condition; undefined when absent, empty or malformed (condition_syntax reports those). */
export function edgeCondition(edge: GraphEdge): EdgeCondition | undefined {
  const attribute = edge.attributes.get('condition');
  if (!attribute || attribute.value.trim() === '') return undefined;
  if (parsedConditions.has(attribute)) return parsedConditions.get(attribute);
  const parsed = parseCondition(attribute.value);
  const condition = parsed.ok ? { attribute, condition: parsed.condition } : undefined;
  parsedConditions.set(attribute, condition);
  return condition;
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
