import type { Graph, GraphNode } from '../model/graph';
import { boolAttr, stringAttr } from '../model/attribute-readers';
import { isSuccessful } from '../model/stage-status';
import type { OutcomeRecord } from './state';

/** Ledger §25: a gate is satisfied only by an explicit SUCCESS or PARTIAL_SUCCESS verdict. */
function isGateSatisfied(record: OutcomeRecord): boolean {
  return isSuccessful(record.status) && record.isExplicit;
}

export function firstUnsatisfiedGate(graph: Graph, outcomes: Readonly<Record<string, OutcomeRecord>>): { node: GraphNode; record: OutcomeRecord } | undefined {
  for (const [nodeId, record] of Object.entries(outcomes)) {
    const node = graph.nodes.get(nodeId);
    if (node && boolAttr(node, 'goal_gate') && !isGateSatisfied(record)) return { node, record };
  }
  return undefined;
}

/** Canonical §3.4: node retry_target, node fallback, graph retry_target, graph fallback — first that exists. */
export function gateRetryTarget(node: GraphNode, graph: Graph): string | undefined {
  const candidates = [
    stringAttr(node, 'retry_target'),
    stringAttr(node, 'fallback_retry_target'),
    graph.attributes.get('retry_target')?.value,
    graph.attributes.get('fallback_retry_target')?.value,
  ];
  return candidates.find((id): id is string => !!id && graph.nodes.has(id));
}

/** Canonical §3.7 failure routing after fail edges: the node's own retry targets. */
export function failureRetryTarget(node: GraphNode, graph: Graph): string | undefined {
  return [stringAttr(node, 'retry_target'), stringAttr(node, 'fallback_retry_target')].find((id): id is string => !!id && graph.nodes.has(id));
}

export function describeGate(node: GraphNode, record: OutcomeRecord): string {
  const why = isSuccessful(record.status) ? 'its success was not an explicit verdict' : `its outcome is ${record.status}${record.failureReason ? ` (${record.failureReason})` : ''}`;
  return `goal gate ${node.id} is unsatisfied: ${why}`;
}
