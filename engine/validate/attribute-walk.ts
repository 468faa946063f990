import { appendTo } from '../model/append-to';
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

/** The written attributes of one graph, walked once and shared by every rule that reads them. */
export interface WrittenAttributeIndex {
  /** All of them, in walk order: graph, then nodes, then edges, each in declaration order. */
  readonly all: readonly WrittenAttribute[];
  /** Those with one of `keys`, in walk order. */
  withKey(...keys: readonly string[]): readonly WrittenAttribute[];
}

const none: readonly WrittenAttribute[] = [];
// A Graph is immutable, so its index never goes stale; the WeakMap lets it go with the graph.
const cache = new WeakMap<Graph, WrittenAttributeIndex>();

/**
 * Every attribute as the author wrote it, once: explicit attributes per element, and each default
 * block entry once however many elements inherit it. Values that transforms produced are skipped;
 * they are checked where they are written (the stylesheet, the schema file).
 */
export function writtenAttributes(graph: Graph): WrittenAttributeIndex {
  let index = cache.get(graph);
  if (!index) {
    index = buildIndex(walk(graph));
    cache.set(graph, index);
  }
  return index;
}

function buildIndex(all: readonly WrittenAttribute[]): WrittenAttributeIndex {
  const byKey = new Map<string, WrittenAttribute[]>();
  for (const written of all) appendTo(byKey, written.attribute.key, written);
  return {
    all,
    withKey(...keys) {
      const lists = keys.map((key) => byKey.get(key)).filter((list) => list !== undefined);
      if (lists.length <= 1) return lists[0] ?? none;
      // Entries under several of the keys (rare): in walk order, read off the walk itself.
      const wanted = new Set(keys);
      return all.filter((written) => wanted.has(written.attribute.key));
    },
  };
}

function walk(graph: Graph): WrittenAttribute[] {
  const all: WrittenAttribute[] = [];
  // One shape for every entry (node and edge always present), so the rules reading them see one.
  const add = (scope: AttributeScope, attribute: Attribute, node: GraphNode | undefined, edge: GraphEdge | undefined) => all.push({ scope, attribute, node, edge });
  const seenDefaults = new Set<number>();
  const firstSight = (attribute: Attribute): boolean => {
    const offset = attribute.range?.start ?? -1;
    if (seenDefaults.has(offset)) return false;
    seenDefaults.add(offset);
    return true;
  };
  for (const attribute of graph.attributes.values()) if (attribute.origin === 'explicit') add('graph', attribute, undefined, undefined);
  for (const node of graph.nodes.values()) {
    for (const attribute of node.attributes.values()) {
      if (attribute.origin === 'explicit') add('node', attribute, node, undefined);
      else if (attribute.origin === 'default' && firstSight(attribute)) add('node', attribute, undefined, undefined);
    }
  }
  for (const edge of graph.edges) {
    for (const attribute of edge.attributes.values()) {
      if (attribute.origin === 'explicit') add('edge', attribute, undefined, edge);
      else if (attribute.origin === 'default' && firstSight(attribute)) add('edge', attribute, undefined, undefined);
    }
  }
  return all;
}

/** The diagnostic fields that name the element an attribute sits on. */
export function ownerOf(written: WrittenAttribute): { nodeId?: string; edge?: EdgeRef } {
  if (written.node) return { nodeId: written.node.id };
  if (written.edge) return { edge: { from: written.edge.from, to: written.edge.to } };
  return {};
}
