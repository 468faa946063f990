/**
 * Context keys a condition can read at a given edge: what the handlers upstream of the edge's
 * source write (canonical §4 handler contracts, ledger tool.last_line / parse_json / outputs).
 */
import type { GraphEdge, GraphNode } from '../../engine/model/graph';
import { resolveHandlerType } from '../../engine/model/handler-types';

export type FlowNode = Pick<GraphNode, 'id' | 'attributes'>;

/** What the keys depend on: the nodes' attributes and which node can run before which (a Graph is one). */
export interface Flow {
  readonly nodes: ReadonlyMap<string, FlowNode>;
  readonly edges: readonly Pick<GraphEdge, 'from' | 'to'>[];
}

export interface ContextKey {
  readonly key: string;
  /** Who writes it, for the completion detail. */
  readonly writer: string;
}

const alwaysPresent: readonly ContextKey[] = [
  { key: 'graph.goal', writer: 'the engine (graph goal)' },
  { key: 'iteration', writer: 'the engine (loop_restart count)' },
  { key: 'loop_count', writer: 'the engine (loop_restart count)' },
  { key: 'last_stage', writer: 'the engine (last completed node)' },
];

function keysWrittenBy(node: FlowNode): string[] {
  const keys: string[] = [];
  switch (resolveHandlerType(node)) {
    case 'tool':
      keys.push('tool.output', 'tool.last_line');
      break;
    case 'wait.human':
      keys.push('human.gate.selected', 'human.gate.label');
      if (node.attributes.get('human.freeform')?.value === 'true') keys.push('human.gate.answer');
      break;
    case 'codergen':
      keys.push('last_response');
      break;
    default:
      break;
  }
  const outputs = node.attributes.get('outputs')?.value ?? '';
  for (const key of outputs.split(',')) if (key.trim()) keys.push(key.trim());
  return keys;
}

/** The answers of contextKeysBefore, by flow and sources: typing in one condition asks the same again and again. */
const answers = new WeakMap<Flow, Map<string, readonly ContextKey[]>>();

/** Keys written by `from` or any node that can run before it. */
export function contextKeysBefore(graph: Flow, from: readonly string[]): readonly ContextKey[] {
  const known = answers.get(graph) ?? answers.set(graph, new Map()).get(graph) as Map<string, readonly ContextKey[]>;
  const key = from.join('\u0000');
  const answer = known.get(key) ?? findContextKeys(graph, from);
  known.set(key, answer);
  return answer;
}

function findContextKeys(graph: Flow, from: readonly string[]): ContextKey[] {
  const incoming = incomingOf(graph);
  const seen = new Set<string>();
  const queue = [...from];
  const found = new Map<string, ContextKey>(alwaysPresent.map((k) => [k.key, k]));
  for (let next = 0; next < queue.length; next++) {
    const id = queue[next] as string;
    if (seen.has(id)) continue;
    seen.add(id);
    const node = graph.nodes.get(id);
    if (node) for (const key of keysWrittenBy(node)) if (!found.has(key)) found.set(key, { key, writer: `node \`${id}\`` });
    for (const source of incoming.get(id) ?? []) queue.push(source);
  }
  return [...found.values()];
}

/** Each node's predecessors. A lent model's graph serves many completions in a row, so it is indexed once. */
const incomingIndexes = new WeakMap<Flow, ReadonlyMap<string, readonly string[]>>();

function incomingOf(graph: Flow): ReadonlyMap<string, readonly string[]> {
  const known = incomingIndexes.get(graph);
  if (known) return known;
  const incoming = new Map<string, string[]>();
  for (const edge of graph.edges) {
    const sources = incoming.get(edge.to);
    if (sources) sources.push(edge.from);
    else incoming.set(edge.to, [edge.from]);
  }
  incomingIndexes.set(graph, incoming);
  return incoming;
}
