import type { Attribute, Attributes, Graph } from '../model/graph';
import { valueSpanOf, withNodeAttributes } from '../model/graph';
import type { Declaration } from './stylesheet';
import { parseStylesheet, styleResolver } from './stylesheet';
import type { Transform } from './transform';

/** Node classes: the `class` attribute's comma-separated names plus classes derived from subgraph labels. */
export function nodeClasses(node: { attributes: Attributes; derivedClasses: readonly string[] }): string[] {
  const written = node.attributes.get('class')?.value;
  if (!written && node.derivedClasses.length === 0) return [];
  const declared = (written ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  return [...new Set([...declared, ...node.derivedClasses])];
}

/** Canonical §8.5: the stylesheet fills in model properties a node does not set itself. */
export const stylesheetTransform: Transform = {
  name: 'model_stylesheet',
  apply(graph: Graph) {
    const source = graph.attributes.get('model_stylesheet');
    if (!source?.value.trim()) return { graph, diagnostics: [] };
    const resolveStyle = styleResolver(parseStylesheet(source.value));
    const updates = new Map<string, Attributes>();
    // Every node a declaration wins on holds the same (immutable) attribute.
    const applied = new Map<Declaration, Attribute>();
    const sourceValue = valueSpanOf(source);
    const attributeOf = (declaration: Declaration): Attribute => {
      let attribute = applied.get(declaration);
      if (!attribute) {
        attribute = { key: declaration.property, value: declaration.value, quoted: true, origin: 'stylesheet', ...(sourceValue ? { range: sourceValue } : {}) };
        applied.set(declaration, attribute);
      }
      return attribute;
    };
    for (const node of graph.nodes.values()) {
      const winners = resolveStyle({ id: node.id, shape: node.attributes.get('shape')?.value ?? 'box', classes: nodeClasses(node) });
      let attributes: Map<string, Attribute> | undefined;
      for (const [property, { declaration }] of winners) {
        if (node.attributes.has(property)) continue;
        attributes ??= new Map(node.attributes);
        attributes.set(property, attributeOf(declaration));
      }
      if (attributes) updates.set(node.id, attributes);
    }
    return { graph: withNodeAttributes(graph, updates), diagnostics: [] };
  },
};
