import type { GraphEdge } from '../model/graph';
import type { LineIndex, SourceRange } from '../model/source';

/** `from -> to` of one edge, also inside a chain `a -> b -> c`. */
export function edgeSpan(lineIndex: LineIndex, edge: GraphEdge): SourceRange {
  return lineIndex.range(edge.fromRange.start.offset, edge.toRange.end.offset);
}
