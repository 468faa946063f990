import type { Attributes, Graph } from './graph';

const BARE_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KEYWORDS = new Set(['node', 'edge', 'graph', 'digraph', 'subgraph', 'strict']);

/**
 * An id or key as DOT: bare when the grammar allows it, otherwise quoted. The parser keeps quoted
 * ids as written (escapes are resolved in values only), so the id goes between the quotes as is.
 */
export function dotId(id: string): string {
  return BARE_ID.test(id) && !KEYWORDS.has(id.toLowerCase()) ? id : `"${id}"`;
}

/** A quoted DOT string whose parse (with the engine's escape rules) gives back `value` exactly. */
function quote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`;
}

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
