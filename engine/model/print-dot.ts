import type { Attributes, Graph } from './graph';
import { dotId, quote } from './dot-text';

function attributeList(attributes: Attributes): string {
  if (attributes.size === 0) return '';
  return ` [${[...attributes.values()].map((a) => `${dotId(a.key)}=${quote(a.value)}`).join(', ')}]`;
}

/**
 * Canonical DOT text of a graph: graph attributes, then every node with its effective attributes,
 * then every edge with its own, one statement per line. Subgraphs are flattened (their defaults are
 * already on the nodes), so parsing the text back gives the same nodes, edges and values.
 */
export function printDot(graph: Graph): string {
  const lines = [`digraph${graph.name ? ` ${dotId(graph.name)}` : ''} {`];
  if (graph.attributes.size > 0) lines.push(`  graph${attributeList(graph.attributes)}`);
  for (const node of graph.nodes.values()) lines.push(`  ${dotId(node.id)}${attributeList(node.attributes)}`);
  for (const edge of graph.edges) lines.push(`  ${dotId(edge.from)} -> ${dotId(edge.to)}${attributeList(edge.attributes)}`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
