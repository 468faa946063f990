import type { Graph } from '../model/graph';

/**
 * Canonical §3.1 initialize / §5.1: every graph attribute is mirrored into the context as
 * `graph.<name>` (`graph.goal` among them, empty when the graph sets none).
 */
export function graphContextEntries(graph: Graph): Record<string, string> {
  const entries: Record<string, string> = { 'graph.goal': '' };
  for (const [name, attribute] of graph.attributes) entries[`graph.${name}`] = attribute.value;
  return entries;
}

/** Canonical §5.1: `internal.retry_count.<node_id>`, the retries a node has used (reset by a success). */
export function retryCountKey(nodeId: string): string {
  return `internal.retry_count.${nodeId}`;
}
