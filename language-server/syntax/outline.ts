/**
 * The statement structure of a DOT text, recovered from tokens alone: blocks, attribute lists
 * (with whom they belong to), graph-level assignments and node id occurrences. It tolerates any
 * input, so completion and folding work while the engine's parser still rejects the text.
 */
import type { Token } from './scanner';
import { scan } from './scanner';

type ListOwner = 'node' | 'edge' | 'node-defaults' | 'edge-defaults' | 'graph-defaults';

export interface AttributeEntry {
  readonly key: Token;
  readonly equals?: Token;
  readonly value?: Token;
  readonly separator?: Token;
}

export interface AttributeList {
  readonly owner: ListOwner;
  /** Inside a subgraph body (not the root graph). */
  readonly inSubgraph: boolean;
  readonly open: Token;
  /** Absent while the list is unterminated. */
  readonly close?: Token;
  readonly entries: readonly AttributeEntry[];
  /** The node ids the statement names (for a node statement, the node; for an edge, its endpoints). */
  readonly subjects: readonly Token[];
  /** The statement's edge operators, when the list belongs to an edge statement. */
  readonly arrows: readonly Token[];
}

export interface Block {
  readonly kind: 'graph' | 'subgraph';
  readonly keyword?: Token;
  readonly name?: Token;
  readonly open: Token;
  readonly close?: Token;
}

/** A `key = value` statement directly in a graph or subgraph body. */
interface Assignment {
  readonly inSubgraph: boolean;
  readonly key: Token;
  readonly equals: Token;
  readonly value?: Token;
}

interface NodeIdOccurrence {
  readonly token: Token;
  /** A node statement (as opposed to an edge endpoint). */
  readonly declaration: boolean;
}

/** One `a -> b` of an edge statement (a chain `a -> b -> c` is two). */
interface OutlineEdge {
  readonly from: Token;
  readonly to: Token;
}

export interface Outline {
  readonly text: string;
  /** Every token, comments included, in order. */
  readonly tokens: readonly Token[];
  readonly blocks: readonly Block[];
  readonly lists: readonly AttributeList[];
  readonly assignments: readonly Assignment[];
  readonly nodeIds: readonly NodeIdOccurrence[];
  readonly arrows: readonly Token[];
  readonly edges: readonly OutlineEdge[];
  /** The tokens statements are read from: `tokens` without comments. */
  readonly code: readonly Token[];
  /** Where each statement of a root graph body starts (see StatementMarks): an edit re-reads from the one before it. */
  readonly marks: StatementMarks;
  /** Index in `tokens` of the first string left unclosed, or -1: where it ends depends on all the text after it. */
  readonly firstOpenString: number;
}

/**
 * Flat records of MARK_FIELDS numbers each: the statement's first code index, the record counts
 * before it (blocks, lists, assignments, nodeIds, arrows, edges) and the index of its root block.
 */
type StatementMarks = readonly number[];
export const MARK_FIELDS = 8;
export const MARK_ROOT = 7;

/** What reading statements needs to go on from a mark: the records so far and the open root block. */
export interface StatementState {
  readonly blocks: Block[];
  readonly lists: AttributeList[];
  readonly assignments: Assignment[];
  readonly nodeIds: NodeIdOccurrence[];
  readonly arrows: Token[];
  readonly edges: OutlineEdge[];
  readonly marks: number[];
  /** The root block open at the mark (undefined before the first graph opens). */
  readonly root?: OpenRoot;
  /** The code index to read from. */
  readonly at: number;
}

/** A root graph block while its body is read, and its index in `blocks`. */
export interface OpenRoot {
  readonly block: Block;
  readonly index: number;
}

export function emptyStatementState(): StatementState {
  return { blocks: [], lists: [], assignments: [], nodeIds: [], arrows: [], edges: [], marks: [], at: 0 };
}

export function buildOutline(text: string): Outline {
  const tokens = scan(text);
  const code = tokens.filter((t) => t.kind !== 'comment');
  const state = emptyStatementState();
  readStatements(text, code, state);
  const { blocks, lists, assignments, nodeIds, arrows, edges, marks } = state;
  return { text, tokens, code, blocks, lists, assignments, nodeIds, arrows, edges, marks, firstOpenString: tokens.findIndex(isOpenString) };
}

export function isOpenString(token: Token): boolean {
  return token.kind === 'string' && !token.terminated;
}

/**
 * Reads statements from `state.at` into the state's records. `stopAt` is asked at each statement
 * of a root graph body (with the code index and the open root); when it says yes the reading
 * stops there and that code index is returned.
 */
export function readStatements(text: string, code: readonly Token[], state: StatementState, stopAt?: (index: number, root: OpenRoot) => boolean): number | undefined {
  const { blocks, lists, assignments, nodeIds, arrows, edges, marks } = state;
  /** Open blocks, innermost last; `group` marks `{ ... }` used as an edge operand. */
  const stack: { block: Block; index: number; group: boolean }[] = state.root ? [{ ...state.root, group: false }] : [];
  let i = state.at;
  const peek = (offset = 0): Token | undefined => code[i + offset];
  const is = (token: Token | undefined, text: string): boolean => token !== undefined && token.kind === 'punct' && token.text === text;
  const isValueToken = (token: Token | undefined): token is Token => token !== undefined && (token.kind === 'id' || token.kind === 'string' || token.kind === 'html');
  const onLaterLine = (a: Token, b: Token): boolean => text.slice(a.end, b.start).includes('\n');
  const inSubgraph = () => stack.length > 1 || (stack.length === 1 && stack[0]?.block.kind === 'subgraph');

  const openBlock = (kind: Block['kind'], keyword: Token | undefined, name: Token | undefined, group: boolean) => {
    const open = code[i] as Token;
    const block: Block = { kind, open, ...(keyword ? { keyword } : {}), ...(name ? { name } : {}) };
    blocks.push(block);
    stack.push({ block, index: blocks.length - 1, group });
    i++;
  };
  const closeBlock = () => {
    const top = stack.pop();
    if (top) blocks[top.index] = { ...top.block, close: code[i] as Token };
    i++;
  };

  const readList = (owner: ListOwner, subjects: Token[], statementArrows: Token[]) => {
    const open = code[i++] as Token;
    const entries: AttributeEntry[] = [];
    let close: Token | undefined;
    while (i < code.length) {
      const token = code[i] as Token;
      if (is(token, ']')) {
        close = token;
        i++;
        break;
      }
      if (is(token, ',') || is(token, ';')) {
        i++;
        continue;
      }
      if (!isValueToken(token)) break; // `{`, `}`, `[`, `=` or `->`: the list was never closed
      // A line that starts a statement (`review [`, `a -> b`): the list above was never closed.
      const after = peek(1);
      if ((is(after, '[') || after?.kind === 'arrow') && onLaterLine(code[i - 1] as Token, token)) break;
      i++;
      const equals = is(peek(), '=') ? (code[i++] as Token) : undefined;
      if (!equals) {
        entries.push({ key: token });
        const following = peek();
        if (following && onLaterLine(token, following)) break; // a half-typed key at the end of the line
        continue;
      }
      const value = isValueToken(peek()) ? (code[i++] as Token) : undefined;
      const separator = is(peek(), ',') || is(peek(), ';') ? (code[i++] as Token) : undefined;
      entries.push({ key: token, equals, ...(value ? { value } : {}), ...(separator ? { separator } : {}) });
    }
    lists.push({ owner, inSubgraph: inSubgraph(), open, ...(close ? { close } : {}), entries, subjects, arrows: statementArrows });
  };

  const readOperand = (subjects: Token[]): void => {
    const token = peek();
    if (!isValueToken(token) || token.kind === 'html' || token.text.toLowerCase() === 'subgraph') return;
    i++;
    subjects.push(token);
    while (is(peek(), ':') && isValueToken(peek(1))) i += 2; // ports are not part of the id
  };

  while (i < code.length) {
    const root = stack.length === 1 ? stack[0] : undefined;
    if (root?.block.kind === 'graph' && !root.group) {
      if (stopAt?.(i, root)) return i;
      marks.push(i, blocks.length, lists.length, assignments.length, nodeIds.length, arrows.length, edges.length, root.index);
    }
    const token = code[i] as Token;
    const lower = token.kind === 'id' ? token.text.toLowerCase() : '';
    if (stack.length === 0) {
      if ((lower === 'graph' || lower === 'digraph') && token.kind === 'id') {
        i++;
        const name = isValueToken(peek()) && !is(peek(), '{') ? (code[i++] as Token) : undefined;
        if (is(peek(), '{')) openBlock('graph', token, name, false);
      } else i++;
      continue;
    }
    if (is(token, '}')) {
      closeBlock();
      continue;
    }
    if (is(token, ';') || is(token, ',')) {
      i++;
      continue;
    }
    if (is(token, '{')) {
      openBlock('subgraph', undefined, undefined, false);
      continue;
    }
    if (lower === 'subgraph') {
      i++;
      const name = isValueToken(peek()) ? (code[i++] as Token) : undefined;
      if (is(peek(), '{')) openBlock('subgraph', token, name, false);
      continue;
    }
    if ((lower === 'node' || lower === 'edge' || lower === 'graph') && is(peek(1), '[')) {
      i++;
      readList(lower === 'node' ? 'node-defaults' : lower === 'edge' ? 'edge-defaults' : 'graph-defaults', [], []);
      continue;
    }
    if (isValueToken(token) && is(peek(1), '=')) {
      i += 2;
      const value = isValueToken(peek()) ? (code[i++] as Token) : undefined;
      assignments.push({ inSubgraph: inSubgraph(), key: token, equals: code[i - (value ? 2 : 1)] as Token, ...(value ? { value } : {}) });
      continue;
    }
    if (token.kind === 'arrow') {
      // An edge whose left side was a `{ ... }` group, or a dangling arrow mid-edit.
      arrows.push(token);
      i++;
      continue;
    }
    const subjects: Token[] = [];
    const statementArrows: Token[] = [];
    const start = i;
    readOperand(subjects);
    while (peek()?.kind === 'arrow') {
      const arrow = code[i++] as Token;
      statementArrows.push(arrow);
      arrows.push(arrow);
      if (is(peek(), '{') || peek()?.text.toLowerCase() === 'subgraph') break; // a group operand: the block loop handles it
      readOperand(subjects);
    }
    for (const subject of subjects) nodeIds.push({ token: subject, declaration: statementArrows.length === 0 });
    if (statementArrows.length > 0) for (let k = 0; k + 1 < subjects.length; k++) edges.push({ from: subjects[k] as Token, to: subjects[k + 1] as Token });
    while (is(peek(), '[')) readList(statementArrows.length > 0 ? 'edge' : 'node', subjects, statementArrows);
    if (i === start) i++; // a token no statement can start with
  }
  return undefined;
}

/** The innermost attribute list whose brackets surround the offset (an unterminated list runs to its last entry). */
export function listAt(outline: Outline, offset: number): AttributeList | undefined {
  let found: AttributeList | undefined;
  for (const list of outline.lists) {
    if (offset <= list.open.start) break;
    const end = list.close ? list.close.start : listEnd(list);
    if (offset <= end) found = list;
  }
  return found;
}

function listEnd(list: AttributeList): number {
  const last = list.entries.at(-1);
  const lastToken = last?.separator ?? last?.value ?? last?.equals ?? last?.key ?? list.open;
  return lastToken.end;
}

/** The token containing the offset (or ending exactly at it), comments included. */
export function tokenAt(outline: Outline, offset: number): Token | undefined {
  const tokens = outline.tokens;
  let low = 0;
  let high = tokens.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const token = tokens[mid] as Token;
    if (token.end < offset) low = mid + 1;
    else if (token.start > offset) high = mid - 1;
    else {
      const next = tokens[mid + 1];
      return next && next.start === offset && token.end === offset ? next : token;
    }
  }
  return undefined;
}

/** The last code token that ends at or before the offset. */
export function tokenBefore(outline: Outline, offset: number): Token | undefined {
  let found: Token | undefined;
  for (const token of outline.tokens) {
    if (token.end > offset) break;
    if (token.kind !== 'comment') found = token;
  }
  return found;
}
