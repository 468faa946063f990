/**
 * Every place a node id is written: node statements, edge endpoints, node-reference attribute
 * values (retry_target, fallback_retry_target, feedback_from) and `#id` stylesheet selectors.
 * Read from the token outline, so it is exact for the current text even when it does not parse.
 */
import { attributeSpec } from '../../engine/model/attributes';
import { parseStylesheet } from '../../engine/transform/stylesheet';
import type { Outline } from '../syntax/outline';
import { forEachSetting } from '../syntax/outline';
import { NODE_ID } from '../syntax/outline-rows';
import { tokenValue, valueSpan } from '../syntax/scanner';
import { documentSpan, tokenContent } from '../syntax/string-content';

type OccurrenceKind = 'declaration' | 'edge' | 'attribute' | 'stylesheet';

export interface NodeOccurrence {
  readonly id: string;
  readonly kind: OccurrenceKind;
  /** Offsets of the id itself (inside the quotes when quoted). */
  readonly start: number;
  readonly end: number;
}

const cache = new WeakMap<Outline, NodeOccurrence[]>();

export function nodeOccurrences(outline: Outline): NodeOccurrence[] {
  const cached = cache.get(outline);
  if (cached) return cached;
  const found = collectOccurrences(outline);
  cache.set(outline, found);
  return found;
}

function collectOccurrences(outline: Outline): NodeOccurrence[] {
  const occurrences: NodeOccurrence[] = [];
  for (let row = 0; row < outline.count('nodeIds'); row++) {
    const token = outline.token(outline.field('nodeIds', row, NODE_ID.token));
    occurrences.push({ id: tokenValue(token), kind: outline.field('nodeIds', row, NODE_ID.declaration) === 1 ? 'declaration' : 'edge', ...valueSpan(token) });
  }
  forEachSetting(outline, (key, at) => {
    if (at < 0) return;
    const kind = attributeSpec(outline.valueOf(key))?.type.kind;
    if (kind !== 'node-ref' && kind !== 'stylesheet') return;
    const value = outline.token(at);
    if (kind === 'node-ref' && value.kind !== 'html') {
      const id = tokenValue(value).trim();
      if (id) occurrences.push({ id, kind: 'attribute', ...valueSpan(value) });
    } else if (kind === 'stylesheet' && value.kind === 'string') {
      const content = tokenContent(value);
      for (const rule of parseStylesheet(content.value).rules) {
        if (rule.selector.kind !== 'id') continue;
        const span = documentSpan(content, rule.start + 1, rule.start + 1 + rule.selector.id.length);
        occurrences.push({ id: rule.selector.id, kind: 'stylesheet', ...span });
      }
    }
  });
  return occurrences.sort((a, b) => a.start - b.start);
}

export function occurrenceAt(occurrences: readonly NodeOccurrence[], offset: number): NodeOccurrence | undefined {
  return occurrences.find((o) => o.start <= offset && offset <= o.end);
}
