/** What the cursor is on, in editor terms: the question completion and hover answer first. */
import type { AttributeScope } from '../../engine/model/attributes';
import type { AttributeList, Outline } from '../syntax/outline';
import { listAt, tokenAt, tokenBefore } from '../syntax/outline';
import type { Token } from '../syntax/scanner';
import { tokenValue } from '../syntax/scanner';

/** Attribute places: the three engine scopes plus a subgraph body, which only takes rendering attributes and `label`. */
export type AttributePlace = AttributeScope | 'subgraph';

export interface Span {
  readonly start: number;
  readonly end: number;
}

export type CursorContext =
  | { readonly kind: 'attribute-name'; readonly place: AttributePlace; readonly list?: AttributeList; readonly replace: Span; readonly present: ReadonlySet<string> }
  | {
      readonly kind: 'attribute-value';
      readonly place: AttributePlace;
      readonly key: string;
      readonly list?: AttributeList;
      /** The value token under the cursor, if any has been typed. */
      readonly value?: Token;
      readonly replace: Span;
    }
  | { readonly kind: 'edge-target'; readonly replace: Span }
  | { readonly kind: 'statement'; readonly inSubgraph: boolean; readonly replace: Span }
  | { readonly kind: 'none' };

export function placeOf(list: AttributeList): AttributePlace {
  switch (list.owner) {
    case 'node':
    case 'node-defaults':
      return 'node';
    case 'edge':
    case 'edge-defaults':
      return 'edge';
    case 'graph-defaults':
      return list.inSubgraph ? 'subgraph' : 'graph';
  }
}

const within = (token: Token, offset: number) => token.start <= offset && offset <= token.end;
/** Inside a string's quotes (an unterminated string runs to the end of the text). */
const insideString = (token: Token, offset: number) => token.kind === 'string' && token.start < offset && (offset < token.end || !token.terminated);

export function cursorContext(outline: Outline, offset: number): CursorContext {
  const token = tokenAt(outline, offset);
  if (token?.kind === 'comment' && token.start < offset && (offset < token.end || !token.text.startsWith('/*'))) return { kind: 'none' };
  const list = listAt(outline, offset);
  if (list) return listContext(list, offset);

  for (const assignment of outline.assignments) {
    if (assignment.key.start > offset) break;
    const place: AttributePlace = assignment.inSubgraph ? 'subgraph' : 'graph';
    if (within(assignment.key, offset) && !(assignment.key.kind === 'string' && !insideString(assignment.key, offset))) {
      return { kind: 'attribute-name', place, replace: assignment.key, present: new Set() };
    }
    const valueEnd = assignment.value ? assignment.value.end : assignment.equals.end;
    const value = assignment.value;
    const inValue = value?.kind === 'string' ? insideString(value, offset) || offset <= value.start : offset <= valueEnd;
    if (offset >= assignment.equals.end && inValue) {
      return valueContext(place, assignment.key, assignment.value, offset, undefined);
    }
  }
  if (token?.kind === 'string' && insideString(token, offset)) return { kind: 'none' };

  const typing = token?.kind === 'id' && within(token, offset) ? token : undefined;
  const replace: Span = typing ?? { start: offset, end: offset };
  const previous = tokenBefore(outline, typing ? typing.start : offset);
  if (previous?.kind === 'arrow') return { kind: 'edge-target', replace };
  const block = [...outline.blocks].reverse().find((b) => b.open.start < offset && (!b.close || offset <= b.close.start));
  if (!block) return { kind: 'none' };
  const startsStatement = !previous || (previous.kind === 'punct' && '{};]'.includes(previous.text)) || outline.text.slice(previous.end, replace.start).includes('\n');
  if (!startsStatement) return { kind: 'none' };
  const inSubgraph = block.kind === 'subgraph';
  return { kind: 'statement', inSubgraph, replace };
}

function listContext(list: AttributeList, offset: number): CursorContext {
  const place = placeOf(list);
  const present = new Set(list.entries.map((entry) => tokenValue(entry.key)));
  for (const entry of list.entries) {
    if (within(entry.key, offset)) {
      present.delete(tokenValue(entry.key));
      return { kind: 'attribute-name', place, list, replace: entry.key, present };
    }
    if (entry.equals && offset >= entry.equals.end) {
      const value = entry.value;
      if (!value && !entry.separator) return valueContext(place, entry.key, undefined, offset, list);
      if (value && (value.kind === 'string' ? insideString(value, offset) || offset <= value.start : offset <= value.end)) return valueContext(place, entry.key, value, offset, list);
    }
  }
  return { kind: 'attribute-name', place, list, replace: { start: offset, end: offset }, present };
}

function valueContext(place: AttributePlace, key: Token, value: Token | undefined, offset: number, list: AttributeList | undefined): CursorContext {
  const keyText = tokenValue(key);
  const replace: Span = !value || offset < value.start ? { start: offset, end: offset } : value;
  return { kind: 'attribute-value', place, key: keyText, ...(list ? { list } : {}), ...(value && offset >= value.start ? { value } : {}), replace };
}
