import type { Clause, Condition, ConditionParse } from '../conditions/condition';
import { parseCondition } from '../conditions/condition';
import type { Attribute, GraphEdge } from '../model/graph';

export interface EdgeCondition {
  readonly attribute: Attribute;
  readonly condition: Condition;
}

// Several rules read every condition in one lint (condition_syntax its errors, the routing and
// data-flow rules its clauses); each attribute is parsed once.
const parsedConditions = new WeakMap<Attribute, { readonly parse: ConditionParse; readonly edgeCondition?: EdgeCondition }>();

function parsedCondition(attribute: Attribute): { readonly parse: ConditionParse; readonly edgeCondition?: EdgeCondition } {
  let parsed = parsedConditions.get(attribute);
  if (!parsed) {
    const parse = parseCondition(attribute.value);
    parsed = parse.ok && parse.condition.clauses.length > 0 ? { parse, edgeCondition: { attribute, condition: parse.condition } } : { parse };
    parsedConditions.set(attribute, parsed);
  }
  return parsed;
}

/** The attribute's value read as a condition. */
export function conditionParse(attribute: Attribute): ConditionParse {
  return parsedCondition(attribute).parse;
}

/** The edge's parsed, non-empty condition; undefined when absent, empty or malformed (condition_syntax reports those). */
export function edgeCondition(edge: GraphEdge): EdgeCondition | undefined {
  const attribute = edge.attributes.get('condition');
  return attribute ? parsedCondition(attribute).edgeCondition : undefined;
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
