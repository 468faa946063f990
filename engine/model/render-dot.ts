// Builds the DOT that Graphviz lays out from the parsed Graph model, not from the user's text: only
// attributes that affect the picture survive, labels are re-escaped, and every node and edge gets a
// stable SVG id the overlay, the search and the reveal messages key on.
import { attributeValue, type Graph, type GraphNode } from './graph';
import { appendTo } from './append-to';
import type { SourceSpan } from './source';
import { resolveHandlerType } from './handler-types';
import { quote } from './dot-text';

export type ElementRef =
  | { readonly kind: 'node'; readonly nodeId: string; readonly range: SourceSpan }
  | { readonly kind: 'edge'; readonly edgeIndex: number; readonly from: string; readonly to: string; readonly range: SourceSpan };

export interface RenderDot {
  readonly dot: string;
  /** SVG element id → what it shows and where it is declared. */
  readonly elements: ReadonlyMap<string, ElementRef>;
}

const MAX_LABEL = 80;
const GRAPH_ATTRIBUTES = ['rankdir', 'nodesep', 'ranksep', 'splines', 'newrank', 'ordering'];
const NODE_ATTRIBUTES = ['shape', 'peripheries', 'width', 'height', 'fixedsize'];
const EDGE_ATTRIBUTES = ['constraint', 'minlen', 'dir', 'headport', 'tailport'];
// Graphviz accepts only plain identifiers and numbers for these; anything else could be an escape.
const SAFE_VALUE = /^[A-Za-z0-9_.:-]{1,40}$/;

export const nodeElementId = (nodeId: string): string => `node:${nodeId}`;
export const edgeElementId = (edgeIndex: number): string => `edge:${edgeIndex}`;
const clusterElementId = (subgraphId: string): string => `cluster:${subgraphId}`;

/**
 * `shown`: draw only these nodes and the edges between them (a part of a graph too large to lay out
 * whole); a drawn node with edges to undrawn ones gets the class `view-boundary`.
 */
export function buildRenderDot(graph: Graph, shown?: ReadonlySet<string>): RenderDot {
  const isShown = (nodeId: string): boolean => !shown || shown.has(nodeId);
  const boundary = new Set<string>();
  const edges = graph.edges.filter((edge) => {
    const from = isShown(edge.from);
    const to = isShown(edge.to);
    if (from !== to) boundary.add(from ? edge.from : edge.to);
    return from && to;
  });
  const elements = new Map<string, ElementRef>();
  const lines = ['digraph attractor {', '  graph [bgcolor="transparent", fontname="sans-serif", pad="0.2"];', '  node [fontname="sans-serif", fontsize=12, shape=box];', '  edge [fontname="sans-serif", fontsize=10];'];
  const graphAttributes = keep(graph.attributes, GRAPH_ATTRIBUTES);
  if (graphAttributes) lines.push(`  graph [${graphAttributes}];`);

  const nodeLine = (node: GraphNode, indent: string): string => {
    const svgId = nodeElementId(node.id);
    elements.set(svgId, { kind: 'node', nodeId: node.id, range: node.declarations[0] ?? node.idRange });
    const labelText = attributeValue(node.attributes, 'label') || node.id;
    const classes = [`handler-${cssToken(resolveHandlerType(node))}`, ...(boundary.has(node.id) ? ['view-boundary'] : [])];
    const attrs = [`id=${quote(svgId)}`, `label=${quote(truncate(labelText))}`, `class=${quote(classes.join(' '))}`, keep(node.attributes, NODE_ATTRIBUTES)];
    return `${indent}${quote(node.id)} [${attrs.filter(Boolean).join(', ')}];`;
  };
  const clusters = clusterTree(graph, isShown);
  const emit = (cluster: string | undefined, indent: string): void => {
    for (const node of clusters.nodesIn.get(cluster) ?? []) lines.push(nodeLine(node, indent));
    for (const child of clusters.childrenOf.get(cluster) ?? []) {
      const label = clusters.labels.get(child);
      // An unlabelled cluster says so: Graphviz would otherwise show its parent's label again.
      lines.push(`${indent}subgraph ${quote(child)} {`, `${indent}  graph [id=${quote(clusterElementId(child))}, label=${quote(truncate(label ?? ''))}];`);
      emit(child, `${indent}  `);
      lines.push(`${indent}}`);
    }
  };
  emit(undefined, '  ');

  for (const edge of edges) {
    const svgId = edgeElementId(edge.index);
    elements.set(svgId, { kind: 'edge', edgeIndex: edge.index, from: edge.from, to: edge.to, range: edge.range });
    const attrs = [`id=${quote(svgId)}`, keep(edge.attributes, EDGE_ATTRIBUTES)];
    const edgeLabel = displayEdgeLabel(edge.attributes);
    if (edgeLabel) attrs.push(`label=${quote(truncate(edgeLabel))}`);
    if (attributeValue(edge.attributes, 'loop_restart') === 'true') attrs.push('class="loop-restart"');
    lines.push(`  ${quote(edge.from)} -> ${quote(edge.to)} [${attrs.filter(Boolean).join(', ')}];`);
  }
  lines.push('}');
  return { dot: lines.join('\n'), elements };
}

interface ClusterTree {
  /** Nodes by their innermost cluster (undefined: outside every cluster), in declaration order. */
  readonly nodesIn: ReadonlyMap<string | undefined, readonly GraphNode[]>;
  readonly childrenOf: ReadonlyMap<string | undefined, readonly string[]>;
  readonly labels: ReadonlyMap<string, string>;
}

/**
 * The subgraphs Graphviz draws as boxes: by its own convention those whose name starts with
 * `cluster`, nested as written. Other subgraphs only scope defaults and classes, and are not drawn.
 */
function clusterTree(graph: Graph, isShown: (nodeId: string) => boolean): ClusterTree {
  const isCluster = (id: string): boolean => id.startsWith('cluster');
  const nodesIn = new Map<string | undefined, GraphNode[]>();
  const childrenOf = new Map<string | undefined, string[]>();
  const seen = new Set<string>();
  for (const node of graph.nodes.values()) {
    if (!isShown(node.id)) continue;
    const path = node.subgraphs.filter(isCluster);
    path.forEach((cluster, depth) => {
      if (seen.has(cluster)) return;
      seen.add(cluster);
      appendTo(childrenOf, path[depth - 1], cluster);
    });
    appendTo(nodesIn, path.at(-1), node);
  }
  const labels = new Map<string, string>();
  for (const subgraph of graph.subgraphs) if (subgraph.label && !labels.has(subgraph.id)) labels.set(subgraph.id, subgraph.label);
  return { nodesIn, childrenOf, labels };
}

function displayEdgeLabel(attributes: Graph['attributes']): string {
  const labelText = attributeValue(attributes, 'label');
  if (labelText) return labelText;
  const condition = attributeValue(attributes, 'condition');
  return condition ? `[${condition}]` : '';
}

function keep(attributes: Graph['attributes'], names: readonly string[]): string {
  return names
    .flatMap((name) => {
      const value = attributeValue(attributes, name);
      return value !== undefined && SAFE_VALUE.test(value) ? [`${name}=${quote(value)}`] : [];
    })
    .join(', ');
}

function truncate(value: string): string {
  const lines = value.split(/\r?\n/).slice(0, 4);
  return lines.map((line) => (line.length > MAX_LABEL ? `${line.slice(0, MAX_LABEL - 1)}…` : line)).join('\n');
}

function cssToken(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, '_');
}
