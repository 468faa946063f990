import type { Clause, Condition, ConditionParse } from '../conditions/condition';
import { parseCondition } from '../conditions/condition';
import type { Attribute, Graph, GraphEdge } from '../model/graph';

export interface EdgeCondition {
  readonly attribute: Attribute;
  readonly condition: Condition;
}

// Several rules read every condition of a graph in one lint (condition_syntax its errors, the
// routing and data-flow rules its clauses), and pipelines repeat the same few conditions: each
// distinct text is parsed once per graph.
const parsesByGraph = new WeakMap<Graph, Map<string, ConditionParse>>();

/** `text` read as a condition, parsed once per graph. */
export function conditionParse(graph: Graph, text: string): ConditionParse {
  let parses = parsesByGraph.get(graph);
  if (!parses) {
    parses = new Map();
    parsesByGraph.set(graph, parses);
  }
  let parse = parses.get(text);
  if (!parse) {
    parse = parseCondition(text);
    parses.set(text, parse);
  }
  return parse;
}

/** The edge's parsed, non-empty condition; undefined when absent, empty or malformed (condition_syntax reports those). */
export function edgeCondition(graph: Graph, edge: GraphEdge): EdgeCondition | undefined {
  const attribute = edge.attributes.get('condition');
  if (!attribute) return undefined;
  const parse = conditionParse(graph, attribute.value);
  return parse.ok && parse.condition.clauses.length > 0 ? { attribute, condition: parse.condition } : undefined;
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
