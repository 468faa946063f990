import type { GraphEdge } from '../model/graph';
import type { SourceSpan } from '../model/source';

/** `from -> to` of one edge, also inside a chain `a -> b -> c`. */
export function edgeSpan(edge: GraphEdge): SourceSpan {
  return { start: edge.fromRange.start, end: edge.toRange.end };
}
