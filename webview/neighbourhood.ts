// The part of a graph too large to lay out whole that the view shows: the nodes nearest to one node,
// by edges in either direction, breadth first, up to a bound. Graphviz's recursion follows paths, so
// a bounded node set also bounds the stack its layout needs.
import type { Graph } from '../engine/model/graph';
import { isStartNode } from '../engine/model/handler-types';

export function neighbourhood(graph: Graph, focus: string, maxNodes: number): ReadonlySet<string> {
  const adjacent = new Map<string, string[]>();
  const link = (a: string, b: string) => {
    const list = adjacent.get(a);
    if (list) list.push(b);
    else adjacent.set(a, [b]);
  };
  for (const edge of graph.edges) {
    link(edge.from, edge.to);
    link(edge.to, edge.from);
  }
  const shown = new Set([focus]);
  const queue = [focus];
  for (let head = 0; head < queue.length && shown.size < maxNodes; head++) {
    for (const next of adjacent.get(queue[head] ?? '') ?? []) {
      if (shown.size >= maxNodes) break;
      if (shown.has(next)) continue;
      shown.add(next);
      queue.push(next);
    }
  }
  return shown;
}

/** The node the view centres on: the requested one when the graph has it, else the start node. */
export function focusNode(graph: Graph, requested: string | undefined): string | undefined {
  if (requested !== undefined && graph.nodes.has(requested)) return requested;
  for (const node of graph.nodes.values()) if (isStartNode(node)) return node.id;
  return graph.nodes.keys().next().value;
}
