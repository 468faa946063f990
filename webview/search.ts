// Search over the graph model: a plain query matches node ids and any attribute value (labels,
// prompts, commands) and edge labels and conditions; `key=value` matches one attribute.
import type { Attributes, Graph } from '../engine/model/graph';
import { edgeElementId, nodeElementId } from '../engine/model/render-dot';

export function findMatches(graph: Graph, query: string): string[] {
  const matcher = compile(query.trim());
  if (!matcher) return [];
  const ids: string[] = [];
  for (const node of graph.nodes.values()) if (matcher(node.attributes, node.id)) ids.push(nodeElementId(node.id));
  for (const edge of graph.edges) if (matcher(edge.attributes, undefined)) ids.push(edgeElementId(edge.index));
  return ids;
}

type Matcher = (attributes: Attributes, id: string | undefined) => boolean;

function compile(query: string): Matcher | undefined {
  if (query === '') return undefined;
  const pair = /^([A-Za-z_][\w.]*)\s*=\s*(.*)$/.exec(query);
  if (pair) {
    const key = pair[1] ?? '';
    const value = (pair[2] ?? '').toLowerCase();
    return (attributes) => attributes.get(key)?.value.toLowerCase().includes(value) ?? false;
  }
  const needle = query.toLowerCase();
  return (attributes, id) => (id !== undefined && id.toLowerCase().includes(needle)) || [...attributes.values()].some((attribute) => attribute.value.toLowerCase().includes(needle));
}
