import type { SourceSpan } from './source';

/** Where an attribute's effective value came from; explains hover text and lint ranges. */
type AttributeOrigin =
  | 'explicit' // written on the node/edge/graph statement itself
  | 'default' // inherited from a `node [...]` / `edge [...]` block in scope
  | 'stylesheet' // applied by the model_stylesheet transform
  | 'transform'; // written by another transform (variable expansion, schema resolution)

export interface Attribute {
  readonly key: string;
  /** The value with quotes removed and DOT escapes (\" \n \t \\) resolved. */
  readonly value: string;
  readonly quoted: boolean;
  readonly origin: AttributeOrigin;
  /** The `key=value` text this value came from (for defaults and stylesheet rules, the rule's text). Ranges in the model are offsets. */
  readonly range?: SourceSpan;
  /**
   * Where the key token ends and the value token starts, when `range` is a `key=value` as written
   * (keySpanOf, valueSpanOf): two numbers rather than two more objects per attribute of the model.
   */
  readonly keyEnd?: number;
  readonly valueStart?: number;
}

/** The key token of an attribute as written. */
export function keySpanOf(attribute: Attribute): SourceSpan | undefined {
  return attribute.range && attribute.keyEnd !== undefined ? { start: attribute.range.start, end: attribute.keyEnd } : undefined;
}

/** The value token of an attribute as written, quotes included. */
export function valueSpanOf(attribute: Attribute): SourceSpan | undefined {
  return attribute.range && attribute.valueStart !== undefined ? { start: attribute.valueStart, end: attribute.range.end } : undefined;
}

export type Attributes = ReadonlyMap<string, Attribute>;

export interface GraphNode {
  readonly id: string;
  readonly attributes: Attributes;
  /** The id token of the first statement that declared or referenced the node. */
  readonly idRange: SourceSpan;
  /** Every node statement that declares this node (not edge references). */
  readonly declarations: readonly SourceSpan[];
  /** Every place the id occurs: node statements and edge endpoints. */
  readonly references: readonly SourceSpan[];
  /** Classes derived from enclosing subgraph labels (canonical 2.10), outermost first. */
  readonly derivedClasses: readonly string[];
  /** Ids of the enclosing subgraphs, outermost first. */
  readonly subgraphs: readonly string[];
}

export interface GraphEdge {
  /** Position in declaration order; stable identity for an edge between the same two nodes. */
  readonly index: number;
  readonly from: string;
  readonly to: string;
  readonly attributes: Attributes;
  /** The whole edge statement (shared by every edge a chain expands to). */
  readonly range: SourceSpan;
  readonly fromRange: SourceSpan;
  readonly toRange: SourceSpan;
}

export interface Subgraph {
  readonly id: string;
  readonly label?: string;
  readonly range: SourceSpan;
  readonly nodeIds: readonly string[];
}

export interface Graph {
  readonly name: string;
  readonly attributes: Attributes;
  readonly nodes: ReadonlyMap<string, GraphNode>;
  readonly edges: readonly GraphEdge[];
  readonly subgraphs: readonly Subgraph[];
  /** The whole `digraph { ... }` statement. */
  readonly range: SourceSpan;
  readonly nameRange?: SourceSpan;
  /** Absolute path of the .dot file, when the graph came from one. */
  readonly sourcePath?: string;
}

export function attributeValue(attributes: Attributes, key: string): string | undefined {
  return attributes.get(key)?.value;
}

/** Whether the edge carries a condition (a blank one counts as none). */
export function isConditional(edge: GraphEdge): boolean {
  return (edge.attributes.get('condition')?.value ?? '').trim() !== '';
}

export function outgoingEdges(graph: Graph, nodeId: string): GraphEdge[] {
  return graph.edges.filter((edge) => edge.from === nodeId);
}

/** Adjacency built once for graph algorithms that would otherwise rescan the edge list per node. */
export interface Adjacency {
  readonly outgoing: ReadonlyMap<string, readonly GraphEdge[]>;
  readonly incoming: ReadonlyMap<string, readonly GraphEdge[]>;
}

export function buildAdjacency(graph: Graph): Adjacency {
  const outgoing = new Map<string, GraphEdge[]>();
  const incoming = new Map<string, GraphEdge[]>();
  for (const id of graph.nodes.keys()) {
    outgoing.set(id, []);
    incoming.set(id, []);
  }
  for (const edge of graph.edges) {
    (outgoing.get(edge.from) ?? outgoing.set(edge.from, []).get(edge.from))?.push(edge);
    (incoming.get(edge.to) ?? incoming.set(edge.to, []).get(edge.to))?.push(edge);
  }
  return { outgoing, incoming };
}

/** Returns a copy of the graph with some nodes' attributes replaced. */
export function withNodeAttributes(graph: Graph, updates: ReadonlyMap<string, Attributes>): Graph {
  if (updates.size === 0) return graph;
  const nodes = new Map<string, GraphNode>();
  for (const [id, node] of graph.nodes) {
    const attributes = updates.get(id);
    nodes.set(id, attributes ? nodeWithAttributes(node, attributes) : node);
  }
  return { ...graph, nodes };
}

/**
 * The node with other attributes, written field by field: a copy has the parsed node's shape, so the
 * rules reading nodes see one kind of object, not a spread's.
 */
function nodeWithAttributes(node: GraphNode, attributes: Attributes): GraphNode {
  return { id: node.id, attributes, idRange: node.idRange, declarations: node.declarations, references: node.references, derivedClasses: node.derivedClasses, subgraphs: node.subgraphs };
}

export function setAttribute(attributes: Attributes, attribute: Attribute): Attributes {
  const next = new Map(attributes);
  next.set(attribute.key, attribute);
  return next;
}
