// Where breakpoints bind in a pipeline's text: node and edge statements by line. Pure over a parsed
// graph; the debug adapter's SourceCatalog and the language server's breakpoint-targets request share it.
import type { Graph, GraphEdge } from '../engine/model/graph';
import type { LineIndex, SourceSpan } from '../engine/model/source';

/** A line of a .dot file a breakpoint can bind to: a node statement or an edge statement. */
export type BreakTarget = { readonly kind: 'node'; readonly nodeId: string; readonly line: number } | { readonly kind: 'edges'; readonly edgeIndices: readonly number[]; readonly line: number };

/**
 * Node statements win over edge statements that share a line; an edge chain is one target. A
 * continuation line of a multi-line statement belongs to that statement, unless another starts there.
 */
export function breakTargets(graph: Graph, lineIndex: LineIndex): Map<number, BreakTarget> {
  const targets = new Map<number, BreakTarget>();
  const edgesByLine = new Map<number, GraphEdge[]>();
  for (const edge of graph.edges) {
    const line = lineIndex.positionAt(edge.range.start).line;
    edgesByLine.set(line, [...(edgesByLine.get(line) ?? []), edge]);
  }
  const statements: { readonly range: SourceSpan; readonly target: BreakTarget }[] = [];
  for (const [line, edges] of edgesByLine) {
    const target: BreakTarget = { kind: 'edges', edgeIndices: edges.map((e) => e.index), line };
    targets.set(line, target);
    for (const edge of edges) statements.push({ range: edge.range, target });
  }
  for (const node of graph.nodes.values()) {
    for (const declaration of node.declarations) {
      const line = lineIndex.positionAt(declaration.start).line;
      const target: BreakTarget = { kind: 'node', nodeId: node.id, line };
      targets.set(line, target);
      statements.push({ range: declaration, target });
    }
  }
  for (const { range, target } of statements) {
    const { start, end } = lineIndex.rangeOf(range);
    for (let line = start.line + 1; line <= end.line; line++) if (!targets.has(line)) targets.set(line, { ...target, line });
  }
  return targets;
}

/** Which nodes and edges carry a breakpoint, given the zero-based lines breakpoints sit on. */
export function breakpointsOnGraph(graph: Graph, lineIndex: LineIndex, lines: Iterable<number>): { nodes: string[]; edges: number[] } {
  const targets = breakTargets(graph, lineIndex);
  const nodes = new Set<string>();
  const edges = new Set<number>();
  for (const line of lines) {
    const target = targets.get(line);
    if (target?.kind === 'node') nodes.add(target.nodeId);
    else if (target) for (const index of target.edgeIndices) edges.add(index);
  }
  return { nodes: [...nodes], edges: [...edges] };
}
