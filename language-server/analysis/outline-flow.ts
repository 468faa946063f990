/**
 * The flow of a text the engine cannot parse at all, read from its outline: each node's own
 * attributes and the edges between them. Completion falls back to it so upstream `context.` keys
 * survive a file that has never parsed.
 */
import type { Attribute } from '../../engine/model/graph';
import type { Outline } from '../syntax/outline';
import { tokenValue } from '../syntax/scanner';
import type { Flow } from './context-keys';

export function outlineFlow(outline: Outline): Flow {
  const attributes = new Map<string, Map<string, Attribute>>();
  const nodeAttributes = (id: string) => attributes.get(id) ?? attributes.set(id, new Map()).get(id) as Map<string, Attribute>;
  for (const occurrence of outline.nodeIds) nodeAttributes(tokenValue(occurrence.token));
  for (const list of outline.lists) {
    if (list.owner !== 'node') continue;
    for (const subject of list.subjects) {
      for (const { key, value } of list.entries) {
        if (value) nodeAttributes(tokenValue(subject)).set(tokenValue(key), { key: tokenValue(key), value: tokenValue(value), quoted: value.kind === 'string', origin: 'explicit' });
      }
    }
  }
  return {
    nodes: new Map([...attributes].map(([id, own]) => [id, { id, attributes: own }])),
    edges: outline.edges.map((edge) => ({ from: tokenValue(edge.from), to: tokenValue(edge.to) })),
  };
}
