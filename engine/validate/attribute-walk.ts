import type { AttributeScope } from '../model/attributes';
import type { EdgeRef } from '../model/diagnostics';
import type { Attribute, Graph, GraphEdge, GraphNode } from '../model/graph';

export interface WrittenAttribute {
  readonly scope: AttributeScope;
  readonly attribute: Attribute;
  /** The element the attribute is written on; absent for a `node [...]`/`edge [...]` default shared by many. */
  readonly node?: GraphNode;
  readonly edge?: GraphEdge;
}

/**
 * Every attribute as the author wrote it, once: explicit attributes per element, and each default
 * block entry once however many elements inherit it. Values that transforms produced are skipped;
 * they are checked where they are written (the stylesheet, the schema file).
 */
export function* writtenAttributes(graph: Graph): Iterable<WrittenAttribute> {
  const seenDefaults = new Set<number>();
  const firstSight = (attribute: Attribute): boolean => {
    if (attribute.origin !== 'default') return true;
    const offset = attribute.range?.start.offset ?? -1;
    if (seenDefaults.has(offset)) return false;
    seenDefaults.add(offset);
    return true;
  };
  for (const attribute of graph.attributes.values()) if (attribute.origin === 'explicit') yield { scope: 'graph', attribute };
  for (const node of graph.nodes.values()) {
    for (const attribute of node.attributes.values()) {
      if (attribute.origin === 'explicit') yield { scope: 'node', attribute, node };
      else if (attribute.origin === 'default' && firstSight(attribute)) yield { scope: 'node', attribute };
    }
  }
  for (const edge of graph.edges) {
    for (const attribute of edge.attributes.values()) {
      if (attribute.origin === 'explicit') yield { scope: 'edge', attribute, edge };
      else if (attribute.origin === 'default' && firstSight(attribute)) yield { scope: 'edge', attribute };
    }
  }
}

/** The diagnostic fields that name the element an attribute sits on. */
export function ownerOf(written: WrittenAttribute): { nodeId?: string; edge?: EdgeRef } {
  if (written.node) return { nodeId: written.node.id };
  if (written.edge) return { edge: { from: written.edge.from, to: written.edge.to } };
  return {};
}
