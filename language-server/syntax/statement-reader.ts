/**
 * Reads the statements of a DOT text from its code tokens into an outline's tables (outline-rows.ts):
 * blocks, attribute lists, assignments, node ids, arrows and edges, and a mark at each statement of a
 * root graph body, so that an edit re-reads from the mark before it (incremental-outline.ts).
 */
import { IntList } from './int-list';
import type { Outline } from './outline';
import { ASSIGNMENT, BLOCK, EDGE, EDGE_DEFAULTS, EDGE_LIST, ENTRY, GRAPH_DEFAULTS, IN_SUBGRAPH, LIST, NODE_DEFAULTS, NODE_ID, NODE_LIST, TABLE_FIELDS, TABLES, type Table } from './outline-rows';
import type { RowStore } from './row-store';
import { ARROW, HTML, ID, KIND_MASK, punct, STRING, TOKEN_FIELDS, UNCLOSED } from './scanner';

/** What reading statements needs to go on from a mark: the rows so far and the open root block. */
export interface StatementState {
  readonly tables: Record<Table, IntList>;
  readonly marks: IntList;
  /** The index of the root block open at the mark (-1 before the first graph opens). */
  readonly root: number;
  /** The code index to read from. */
  readonly at: number;
}

/**
 * The numbers each table has room for per code token when a whole text is read: a pipeline's rows with
 * room to spare (the 5,000-node bench pipeline uses 0.70 for entries, 0.76 lists, 0.50 node ids, 0.06
 * arrows, 0.12 edges), so its tables never grow. Each growth was a fresh array, copied into, whose pages
 * fault in (on this VM ~25 µs a page): on a fresh server's first open that was ~13% of the main
 * thread's CPU to the first completion. Pages past what is written are never touched.
 */
const ROOM_PER_CODE_TOKEN: Readonly<Record<Table, number>> = { blocks: 0, lists: 1, entries: 1, assignments: 0, nodeIds: 0.75, arrows: 0.125, edges: 0.25 };

/** A state to read from the first statement; `codeTokens` (the text's code token count) sizes the tables. */
export function emptyStatementState(codeTokens = 0): StatementState {
  const tables = Object.fromEntries(TABLES.map((table) => [table, new IntList(Math.max(64, Math.ceil(codeTokens * ROOM_PER_CODE_TOKEN[table])))])) as Record<Table, IntList>;
  return { tables, marks: new IntList(), root: -1, at: 0 };
}

export function tableStores(state: StatementState): Record<Table, RowStore> {
  return Object.fromEntries(TABLES.map((table) => [table, state.tables[table].store(TABLE_FIELDS[table])])) as Record<Table, RowStore>;
}

/** The index of the first unclosed string among the token rows from `from`, or -1. */
export function firstOpenString(tokens: RowStore, from: number, to = tokens.rowCount): number {
  for (let t = from; t < to; t++) if (tokens.at(t * TOKEN_FIELDS) === (STRING | UNCLOSED)) return t;
  return -1;
}

/** The token rows' first field for the punctuation statements are read by. */
const OPEN_BRACE = punct(0x7b);
const CLOSE_BRACE = punct(0x7d);
const OPEN_BRACKET = punct(0x5b);
const CLOSE_BRACKET = punct(0x5d);
const EQUALS = punct(0x3d);
const COMMA = punct(0x2c);
const SEMICOLON = punct(0x3b);
const COLON = punct(0x3a);

/** The first letters (lower-case char codes) of the keywords of each length: node, edge; graph; digraph; subgraph. */
const KEYWORD_STARTS: readonly (readonly number[] | undefined)[] = [undefined, undefined, undefined, undefined, [0x6e, 0x65], [0x67], undefined, [0x64], [0x73]];

/**
 * Reads statements of `outline` (its tokens and code; its records are not read) from `state.at`
 * into the state's tables. `stopAt` is asked at each statement of a root graph body (with the code
 * index and the open root block); when it says yes the reading stops there and that index is returned.
 */
export function readStatements(outline: Outline, state: StatementState, stopAt?: (index: number, root: number) => boolean): number | undefined {
  const { text } = outline;
  const { code, tokens } = outline.rows;
  const { blocks, lists, entries, assignments, nodeIds, arrows, edges } = state.tables;
  const marks = state.marks;
  /** Open blocks (their rows), innermost last, and whether each is a `{ ... }` used as an edge operand. */
  const stack: number[] = state.root >= 0 ? [state.root] : [];
  const groups: boolean[] = state.root >= 0 ? [false] : [];
  let i = state.at;
  const length = code.length;
  // Token rows are read in place (kind, start, end): this runs over every token of a text that opens.
  const kindOf = (t: number): number => tokens.at(t * TOKEN_FIELDS) & KIND_MASK;
  const startOf = (t: number): number => tokens.at(t * TOKEN_FIELDS + 1);
  const endOf = (t: number): number => tokens.at(t * TOKEN_FIELDS + 2);
  const peek = (offset = 0): number => (i + offset < length ? code.at(i + offset) : -1);
  /** The first field of token `t`'s row (its kind, flagged; for punctuation, punct(char)), or -1 for no token. */
  const rowHead = (t: number): number => (t >= 0 ? tokens.at(t * TOKEN_FIELDS) : -1);
  /** Whether token `t` is the punctuation `row` (the first field of its row: punct(char)). */
  const is = (t: number, row: number): boolean => rowHead(t) === row;
  const isValueToken = (t: number): boolean => t >= 0 && kindOf(t) <= HTML; // id, string, html
  const onLaterLine = (a: number, b: number): boolean => {
    const newline = text.indexOf('\n', endOf(a));
    return newline >= 0 && newline < startOf(b);
  };
  const blockKind = (row: number) => blocks.at(row * BLOCK.fields + BLOCK.kind);
  const inSubgraph = () => stack.length > 1 || (stack.length === 1 && blockKind(stack[0] as number) === 1);
  const innermost = () => stack.at(-1) ?? -1;
  /** The lower-case text of an id token that may be a keyword (`graph`, `subgraph`…), else ''. */
  const keyword = (t: number): string => {
    if (kindOf(t) !== ID) return '';
    const start = startOf(t);
    // Only a keyword's length and first letter make the token worth slicing (most ids are node ids).
    const first = text.charCodeAt(start) | 0x20;
    const candidate = KEYWORD_STARTS[endOf(t) - start];
    return candidate !== undefined && candidate.includes(first) ? text.slice(start, endOf(t)).toLowerCase() : '';
  };

  const openBlock = (kind: number, keywordToken: number, name: number, group: boolean) => {
    blocks.push(kind);
    blocks.push(keywordToken);
    blocks.push(name);
    blocks.push(code.at(i));
    blocks.push(-1);
    stack.push(blocks.length / BLOCK.fields - 1);
    groups.push(group);
    i++;
  };
  const closeBlock = () => {
    const top = stack.pop();
    groups.pop();
    if (top !== undefined) blocks.set(top * BLOCK.fields + BLOCK.close, code.at(i));
    i++;
  };

  const readList = (owner: number, subjectsFrom: number, subjectsTo: number, arrowsFrom: number, arrowsTo: number) => {
    const open = code.at(i++);
    const entriesFrom = entries.length / ENTRY.fields;
    let close = -1;
    // Each token's row head (kind and punctuation, see punct) is read once: lists hold most of a pipeline's tokens.
    while (i < length) {
      const t = code.at(i);
      const head = rowHead(t);
      if (head === CLOSE_BRACKET) {
        close = t;
        i++;
        break;
      }
      if (head === COMMA || head === SEMICOLON) {
        i++;
        continue;
      }
      if ((head & KIND_MASK) > HTML) break; // `{`, `}`, `[`, `=` or `->`: the list was never closed
      // A line that starts a statement (`review [`, `a -> b`): the list above was never closed.
      const after = peek(1);
      const afterHead = rowHead(after);
      if ((afterHead === OPEN_BRACKET || afterHead === ARROW) && onLaterLine(code.at(i - 1), t)) break;
      i++;
      const equals = rowHead(peek()) === EQUALS ? code.at(i++) : -1;
      if (equals < 0) {
        entries.push4(t, -1, -1, -1);
        const following = peek();
        if (following >= 0 && onLaterLine(t, following)) break; // a half-typed key at the end of the line
        continue;
      }
      const valueHead = rowHead(peek());
      const value = valueHead >= 0 && (valueHead & KIND_MASK) <= HTML ? code.at(i++) : -1;
      const separatorHead = rowHead(peek());
      const separator = separatorHead === COMMA || separatorHead === SEMICOLON ? code.at(i++) : -1;
      entries.push4(t, equals, value, separator);
    }
    lists.push4(owner | (inSubgraph() ? IN_SUBGRAPH : 0), open, close, entriesFrom);
    lists.push(entries.length / ENTRY.fields);
    lists.push4(subjectsFrom, subjectsTo, arrowsFrom, arrowsTo);
    lists.push(innermost());
  };

  /** Reads one operand of a node or edge statement; its token, if an id, or -1. */
  const readOperand = (): number => {
    const t = peek();
    if (!isValueToken(t) || kindOf(t) === HTML || keyword(t) === 'subgraph') return -1;
    i++;
    while (is(peek(), COLON) && isValueToken(peek(1))) i += 2; // ports are not part of the id
    return t;
  };

  /** The operands of the statement being read, `subjectCount` of them (reused from one statement to the next). */
  const subjects: number[] = [];
  while (i < length) {
    const root = stack.length === 1 ? (stack[0] as number) : -1;
    if (root >= 0 && blockKind(root) === 0 && !groups[0]) {
      if (stopAt?.(i, root)) return i;
      // The row counts in TABLES order (a mark per statement: spelled out rather than looped).
      marks.push4(i, blocks.length / BLOCK.fields, lists.length / LIST.fields, entries.length / ENTRY.fields);
      marks.push4(assignments.length / ASSIGNMENT.fields, nodeIds.length / NODE_ID.fields, arrows.length, edges.length / EDGE.fields);
      marks.push(root);
    }
    const t = code.at(i);
    const lower = keyword(t);
    if (stack.length === 0) {
      if (lower === 'graph' || lower === 'digraph') {
        i++;
        const name = isValueToken(peek()) && !is(peek(), OPEN_BRACE) ? code.at(i++) : -1;
        if (is(peek(), OPEN_BRACE)) openBlock(0, t, name, false);
      } else i++;
      continue;
    }
    if (is(t, CLOSE_BRACE)) {
      closeBlock();
      continue;
    }
    if (is(t, SEMICOLON) || is(t, COMMA)) {
      i++;
      continue;
    }
    if (is(t, OPEN_BRACE)) {
      openBlock(1, -1, -1, false);
      continue;
    }
    if (lower === 'subgraph') {
      i++;
      const name = isValueToken(peek()) ? code.at(i++) : -1;
      if (is(peek(), OPEN_BRACE)) openBlock(1, t, name, false);
      continue;
    }
    if ((lower === 'node' || lower === 'edge' || lower === 'graph') && is(peek(1), OPEN_BRACKET)) {
      i++;
      const here = nodeIds.length / NODE_ID.fields;
      const arrowsHere = arrows.length;
      readList(lower === 'node' ? NODE_DEFAULTS : lower === 'edge' ? EDGE_DEFAULTS : GRAPH_DEFAULTS, here, here, arrowsHere, arrowsHere);
      continue;
    }
    if (isValueToken(t) && is(peek(1), EQUALS)) {
      i += 2;
      const value = isValueToken(peek()) ? code.at(i++) : -1;
      assignments.push4(inSubgraph() ? 1 : 0, t, code.at(i - (value >= 0 ? 2 : 1)), value);
      assignments.push(innermost());
      continue;
    }
    if (kindOf(t) === ARROW) {
      // An edge whose left side was a `{ ... }` group, or a dangling arrow mid-edit.
      arrows.push(t);
      i++;
      continue;
    }
    let subjectCount = 0;
    const arrowsFrom = arrows.length;
    const start = i;
    const first = readOperand();
    if (first >= 0) subjects[subjectCount++] = first;
    while (peek() >= 0 && kindOf(peek()) === ARROW) {
      arrows.push(code.at(i++));
      if (is(peek(), OPEN_BRACE) || keyword(peek()) === 'subgraph') break; // a group operand: the block loop handles it
      const operand = readOperand();
      if (operand >= 0) subjects[subjectCount++] = operand;
    }
    const arrowsTo = arrows.length;
    const declaration = arrowsTo === arrowsFrom ? 1 : 0;
    const subjectsFrom = nodeIds.length / NODE_ID.fields;
    for (let k = 0; k < subjectCount; k++) nodeIds.push3(subjects[k] as number, declaration, innermost());
    const subjectsTo = nodeIds.length / NODE_ID.fields;
    if (!declaration) for (let k = 0; k + 1 < subjectCount; k++) {
      edges.push(subjects[k] as number);
      edges.push(subjects[k + 1] as number);
    }
    while (is(peek(), OPEN_BRACKET)) readList(declaration ? NODE_LIST : EDGE_LIST, subjectsFrom, subjectsTo, arrowsFrom, arrowsTo);
    if (i === start) i++; // a token no statement can start with
  }
  return undefined;
}
