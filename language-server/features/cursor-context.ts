/** What the cursor is on, in editor terms: the question completion and hover answer first. */
import type { AttributeScope } from '../../engine/model/attributes';
import type { Outline } from '../syntax/outline';
import type { AttributeList } from '../syntax/outline-rows';
import { listAt, tokenAt, tokenBefore } from '../syntax/outline';
import { ASSIGNMENT, BLOCK } from '../syntax/outline-rows';
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
  const at = tokenAt(outline, offset);
  const token = at >= 0 ? outline.token(at) : undefined;
  if (token?.kind === 'comment' && token.start < offset && (offset < token.end || !token.text.startsWith('/*'))) return { kind: 'none' };
  const list = listAt(outline, offset);
  if (list >= 0) return listContext(outline.list(list), offset);

  for (let row = 0; row < outline.count('assignments'); row++) {
    const assignment = (field: number) => outline.field('assignments', row, field);
    const key = outline.token(assignment(ASSIGNMENT.key));
    if (key.start > offset) break;
    const place: AttributePlace = assignment(ASSIGNMENT.inSubgraph) === 1 ? 'subgraph' : 'graph';
    if (within(key, offset) && !(key.kind === 'string' && !insideString(key, offset))) {
      return { kind: 'attribute-name', place, replace: key, present: new Set() };
    }
    const value = assignment(ASSIGNMENT.value) >= 0 ? outline.token(assignment(ASSIGNMENT.value)) : undefined;
    const equalsEnd = outline.endOf(assignment(ASSIGNMENT.equals));
    const inValue = value?.kind === 'string' ? insideString(value, offset) || offset <= value.start : offset <= (value ? value.end : equalsEnd);
    if (offset >= equalsEnd && inValue) return valueContext(place, key, value, offset, undefined);
  }
  if (token?.kind === 'string' && insideString(token, offset)) return { kind: 'none' };

  const typing = token?.kind === 'id' && within(token, offset) ? token : undefined;
  const replace: Span = typing ?? { start: offset, end: offset };
  const before = tokenBefore(outline, typing ? typing.start : offset);
  const previous = before >= 0 ? outline.token(before) : undefined;
  if (previous?.kind === 'arrow') return { kind: 'edge-target', replace };
  const block = blockAround(outline, offset);
  if (block < 0) return { kind: 'none' };
  const startsStatement = !previous || (previous.kind === 'punct' && '{};]'.includes(previous.text)) || outline.text.slice(previous.end, replace.start).includes('\n');
  if (!startsStatement) return { kind: 'none' };
  const inSubgraph = outline.field('blocks', block, BLOCK.kind) === 1;
  return { kind: 'statement', inSubgraph, replace };
}

/** The last block opened before the offset that is still open there, or -1. */
function blockAround(outline: Outline, offset: number): number {
  for (let row = outline.count('blocks') - 1; row >= 0; row--) {
    const close = outline.field('blocks', row, BLOCK.close);
    if (outline.startOf(outline.field('blocks', row, BLOCK.open)) < offset && (close < 0 || offset <= outline.startOf(close))) return row;
  }
  return -1;
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
