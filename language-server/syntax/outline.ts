/**
 * The statement structure of a DOT text, recovered from tokens alone: blocks, attribute lists
 * (with whom they belong to), graph-level assignments and node id occurrences. It tolerates any
 * input, so completion and folding work while the engine's parser still rejects the text.
 *
 * Tokens and records are rows of numbers in typed arrays (token indexes, offsets, record indexes;
 * -1 for absent), not objects: a 5,000-node text has over 100,000 tokens, and an edit copies and
 * shifts rows at memory speed without making garbage (incremental-outline.ts). Features that scan
 * the whole text may read the records as objects (`lists`, `blocks`…, made once per outline on
 * first read; `tokens`, made on each read); the per-keystroke paths (cursor context, the flow,
 * completion) and the per-version ones (semantic tokens, node occurrences) read rows.
 */
import { IntList } from './int-list';
import type { Token, TokenKind } from './scanner';
import { ARROW, COMMENT, HTML, ID, KIND_CODES, KIND_MASK, punct, scanInto, STRING, stringValue, TOKEN_FIELDS, UNCLOSED } from './scanner';

type ListOwner = 'node' | 'edge' | 'node-defaults' | 'edge-defaults' | 'graph-defaults';
const OWNERS: readonly ListOwner[] = ['node', 'edge', 'node-defaults', 'edge-defaults', 'graph-defaults'];
export const NODE_LIST = 0;
export const EDGE_LIST = 1;
export const NODE_DEFAULTS = 2;
const EDGE_DEFAULTS = 3;
export const GRAPH_DEFAULTS = 4;

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

/** Block rows: kind (0 graph, 1 subgraph), keyword, name, open, close. */
export const BLOCK = { kind: 0, keyword: 1, name: 2, open: 3, close: 4, fields: 5 } as const;
/**
 * List rows: owner code (+ IN_SUBGRAPH), open, close, entry rows [from, to), subject (node id) rows
 * [from, to), arrow rows [from, to), and the innermost block around the statement (as in the
 * assignment and node id rows: the flow's scopes).
 */
export const LIST = { owner: 0, open: 1, close: 2, entriesFrom: 3, entriesTo: 4, subjectsFrom: 5, subjectsTo: 6, arrowsFrom: 7, arrowsTo: 8, block: 9, fields: 10 } as const;
export const IN_SUBGRAPH = 8;
/** Entry rows: key, equals, value, separator. */
export const ENTRY = { key: 0, equals: 1, value: 2, separator: 3, fields: 4 } as const;
/** Assignment rows: in a subgraph (0 or 1), key, equals, value, innermost block. */
export const ASSIGNMENT = { inSubgraph: 0, key: 1, equals: 2, value: 3, block: 4, fields: 5 } as const;
/** Node id rows: token, declaration (0 or 1), innermost block. */
export const NODE_ID = { token: 0, declaration: 1, block: 2, fields: 3 } as const;
/** Edge rows: from, to (tokens). */
export const EDGE = { from: 0, to: 1, fields: 2 } as const;

/** The record tables, in the order of the statement marks' count fields. */
export const TABLES = ['blocks', 'lists', 'entries', 'assignments', 'nodeIds', 'arrows', 'edges'] as const;
type Table = (typeof TABLES)[number];
export const TABLE_FIELDS: Readonly<Record<Table, number>> = { blocks: BLOCK.fields, lists: LIST.fields, entries: ENTRY.fields, assignments: ASSIGNMENT.fields, nodeIds: NODE_ID.fields, arrows: 1, edges: EDGE.fields };

/**
 * Statement marks: where each statement of a root graph body starts, MARK_FIELDS numbers each: the
 * statement's first code index, the row counts of the tables before it (TABLES order) and the
 * index of its root block. An edit re-reads from the mark before it.
 */
export const MARK_FIELDS = 2 + TABLES.length;
export const MARK_ROOT = MARK_FIELDS - 1;

/** The rows of an outline. */
export interface OutlineRows {
  /** Every token, comments included, in order (TOKEN_FIELDS numbers each). */
  readonly tokens: Int32Array;
  /** The indexes of the tokens statements are read from: the tokens without comments. */
  readonly code: Int32Array;
  readonly tables: Readonly<Record<Table, Int32Array>>;
  readonly marks: Int32Array;
  /** Index of the first string left unclosed, or -1: where it ends depends on all the text after it. */
  readonly firstOpenString: number;
}

export class Outline {
  private records: Partial<Record<Table, readonly unknown[]>> | undefined;
  private deepest: number | undefined;

  constructor(
    readonly text: string,
    readonly rows: OutlineRows,
  ) {}

  get tokenCount(): number {
    return this.rows.tokens.length / TOKEN_FIELDS;
  }

  /** The kind code of token `t` (see scanner.ts), without UNCLOSED or a punctuation's char. */
  kindOf(t: number): number {
    return (this.rows.tokens[t * TOKEN_FIELDS] as number) & KIND_MASK;
  }

  startOf(t: number): number {
    return this.rows.tokens[t * TOKEN_FIELDS + 1] as number;
  }

  endOf(t: number): number {
    return this.rows.tokens[t * TOKEN_FIELDS + 2] as number;
  }

  closed(t: number): boolean {
    return ((this.rows.tokens[t * TOKEN_FIELDS] as number) & UNCLOSED) === 0;
  }

  textOf(t: number): string {
    return this.text.slice(this.startOf(t), this.endOf(t));
  }

  /** The value of an id or string token (see tokenValue). */
  valueOf(t: number): string {
    return this.kindOf(t) === STRING ? stringValue(this.textOf(t), this.closed(t)) : this.textOf(t);
  }

  /** Token `t` as an object (a new one each time; its text is sliced when read). */
  token(t: number): Token {
    return new RowToken(this.text, KIND_CODES[this.kindOf(t)] as TokenKind, this.startOf(t), this.endOf(t), this.closed(t));
  }

  /** Token `t` as an object, or undefined for -1 (an absent token). */
  private maybe(t: number): Token | undefined {
    return t < 0 ? undefined : this.token(t);
  }

  /** Field `field` of row `row` of a record table. */
  field(table: Table, row: number, field: number): number {
    return this.rows.tables[table][row * TABLE_FIELDS[table] + field] as number;
  }

  count(table: Table): number {
    return this.rows.tables[table].length / TABLE_FIELDS[table];
  }

  /** The owner code of list `row` (NODE_LIST…). */
  ownerOf(row: number): number {
    return this.field('lists', row, LIST.owner) & ~IN_SUBGRAPH;
  }

  /** Every token, in order, as objects (made on each read). */
  /** How deep blocks nest below the graph's body (a subgraph in it: 1), found on the first ask in one pass over the blocks. */
  get nesting(): number {
    if (this.deepest !== undefined) return this.deepest;
    const closes: number[] = [];
    let deepest = 0;
    for (let row = 0, count = this.count('blocks'); row < count; row++) {
      const open = this.field('blocks', row, BLOCK.open);
      while (closes.length > 0 && (closes.at(-1) as number) < open) closes.pop();
      deepest = Math.max(deepest, closes.length);
      const close = this.field('blocks', row, BLOCK.close);
      closes.push(close < 0 ? Infinity : close);
    }
    this.deepest = deepest;
    return deepest;
  }

  get tokens(): readonly Token[] {
    return Array.from({ length: this.tokenCount }, (_, t) => this.token(t));
  }

  get blocks(): readonly Block[] {
    return this.cached('blocks', (row): Block => {
      const at = (field: number) => this.field('blocks', row, field);
      return withOptional({ kind: at(BLOCK.kind) === 0 ? 'graph' : 'subgraph', open: this.token(at(BLOCK.open)) }, { keyword: this.maybe(at(BLOCK.keyword)), name: this.maybe(at(BLOCK.name)), close: this.maybe(at(BLOCK.close)) });
    });
  }

  get lists(): readonly AttributeList[] {
    return this.cached('lists', (row) => this.list(row));
  }

  get assignments(): readonly Assignment[] {
    return this.cached('assignments', (row): Assignment => {
      const at = (field: number) => this.field('assignments', row, field);
      return withOptional({ inSubgraph: at(ASSIGNMENT.inSubgraph) === 1, key: this.token(at(ASSIGNMENT.key)), equals: this.token(at(ASSIGNMENT.equals)) }, { value: this.maybe(at(ASSIGNMENT.value)) });
    });
  }

  get nodeIds(): readonly NodeIdOccurrence[] {
    return this.cached('nodeIds', (row) => ({ token: this.token(this.field('nodeIds', row, NODE_ID.token)), declaration: this.field('nodeIds', row, NODE_ID.declaration) === 1 }));
  }

  get arrows(): readonly Token[] {
    return this.cached('arrows', (row) => this.token(this.field('arrows', row, 0)));
  }

  get edges(): readonly OutlineEdge[] {
    return this.cached('edges', (row) => ({ from: this.token(this.field('edges', row, EDGE.from)), to: this.token(this.field('edges', row, EDGE.to)) }));
  }

  /** List `row` as an object. */
  list(row: number): AttributeList {
    const at = (field: number) => this.field('lists', row, field);
    const entries: AttributeEntry[] = [];
    for (let e = at(LIST.entriesFrom); e < at(LIST.entriesTo); e++) {
      const entry = (field: number) => this.field('entries', e, field);
      entries.push(withOptional({ key: this.token(entry(ENTRY.key)) }, { equals: this.maybe(entry(ENTRY.equals)), value: this.maybe(entry(ENTRY.value)), separator: this.maybe(entry(ENTRY.separator)) }));
    }
    const tokens = (table: 'nodeIds' | 'arrows', from: number, to: number) => Array.from({ length: to - from }, (_, k) => this.token(this.field(table, from + k, 0)));
    return withOptional(
      {
        owner: OWNERS[this.ownerOf(row)] as ListOwner,
        inSubgraph: (at(LIST.owner) & IN_SUBGRAPH) !== 0,
        open: this.token(at(LIST.open)),
        entries,
        subjects: tokens('nodeIds', at(LIST.subjectsFrom), at(LIST.subjectsTo)),
        arrows: tokens('arrows', at(LIST.arrowsFrom), at(LIST.arrowsTo)),
      },
      { close: this.maybe(at(LIST.close)) },
    );
  }

  /** A table's rows as objects, made on first read. */
  private cached<T>(table: Exclude<Table, 'entries'>, make: (row: number) => T): readonly T[] {
    this.records ??= {};
    const known = this.records[table];
    if (known) return known as T[];
    const made = Array.from({ length: this.count(table) }, (_, row) => make(row));
    this.records[table] = made;
    return made;
  }
}

/** A token of an outline's rows; its text is sliced from the outline's text when read. */
class RowToken implements Token {
  /** Not a property: a token printed or compared is its kind, offsets and flag, not the whole text. */
  readonly #source: string;

  constructor(
    source: string,
    readonly kind: TokenKind,
    readonly start: number,
    readonly end: number,
    readonly terminated: boolean,
  ) {
    this.#source = source;
  }

  get text(): string {
    return this.#source.slice(this.start, this.end);
  }
}

/** `record` with those of `optional` that are defined (an absent token is no property at all). */
function withOptional<T extends object, O extends Record<string, Token | undefined>>(record: T, optional: O): T & Partial<{ [K in keyof O]: Token }> {
  const target = record as T & Record<string, Token>;
  for (const key in optional) {
    const token = optional[key];
    if (token) (target as Record<string, Token>)[key] = token;
  }
  return target as T & Partial<{ [K in keyof O]: Token }>;
}

/** What reading statements needs to go on from a mark: the rows so far and the open root block. */
export interface StatementState {
  readonly tables: Record<Table, IntList>;
  readonly marks: IntList;
  /** The index of the root block open at the mark (-1 before the first graph opens). */
  readonly root: number;
  /** The code index to read from. */
  readonly at: number;
}

export function emptyStatementState(): StatementState {
  const tables = Object.fromEntries(TABLES.map((table) => [table, new IntList()])) as Record<Table, IntList>;
  return { tables, marks: new IntList(), root: -1, at: 0 };
}

export function buildOutline(text: string): Outline {
  // Room for a token (three numbers) every four characters, most of them code: a pipeline's rows fit without growing.
  const tokens = new IntList(Math.max(64, (text.length * 3) >> 2));
  const code = new IntList(Math.max(64, text.length >> 2));
  scanInto(text, 0, tokens, code);
  const state = emptyStatementState();
  const partial = new Outline(text, { tokens: tokens.view(), code: code.view(), tables: emptyTables(), marks: new Int32Array(0), firstOpenString: -1 });
  readStatements(partial, state);
  return new Outline(text, { tokens: tokens.view(), code: code.view(), tables: tableViews(state), marks: state.marks.view(), firstOpenString: firstOpenString(tokens.view(), 0) });
}

function emptyTables(): Record<Table, Int32Array> {
  return Object.fromEntries(TABLES.map((table) => [table, new Int32Array(0)])) as Record<Table, Int32Array>;
}

export function tableViews(state: StatementState): Record<Table, Int32Array> {
  return Object.fromEntries(TABLES.map((table) => [table, state.tables[table].view()])) as Record<Table, Int32Array>;
}

/** The index of the first unclosed string among the token rows from `from`, or -1. */
export function firstOpenString(tokens: Int32Array, from: number, to = tokens.length / TOKEN_FIELDS): number {
  for (let t = from; t < to; t++) if (tokens[t * TOKEN_FIELDS] === (STRING | UNCLOSED)) return t;
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
  const kindOf = (t: number): number => (tokens[t * TOKEN_FIELDS] as number) & KIND_MASK;
  const startOf = (t: number): number => tokens[t * TOKEN_FIELDS + 1] as number;
  const endOf = (t: number): number => tokens[t * TOKEN_FIELDS + 2] as number;
  const peek = (offset = 0): number => (i + offset < length ? (code[i + offset] as number) : -1);
  /** The first field of token `t`'s row (its kind, flagged; for punctuation, punct(char)), or -1 for no token. */
  const rowHead = (t: number): number => (t >= 0 ? (tokens[t * TOKEN_FIELDS] as number) : -1);
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
    blocks.push(code[i] as number);
    blocks.push(-1);
    stack.push(blocks.length / BLOCK.fields - 1);
    groups.push(group);
    i++;
  };
  const closeBlock = () => {
    const top = stack.pop();
    groups.pop();
    if (top !== undefined) blocks.set(top * BLOCK.fields + BLOCK.close, code[i] as number);
    i++;
  };

  const readList = (owner: number, subjectsFrom: number, subjectsTo: number, arrowsFrom: number, arrowsTo: number) => {
    const open = code[i++] as number;
    const entriesFrom = entries.length / ENTRY.fields;
    let close = -1;
    // Each token's row head (kind and punctuation, see punct) is read once: lists hold most of a pipeline's tokens.
    while (i < length) {
      const t = code[i] as number;
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
      if ((afterHead === OPEN_BRACKET || afterHead === ARROW) && onLaterLine(code[i - 1] as number, t)) break;
      i++;
      const equals = rowHead(peek()) === EQUALS ? (code[i++] as number) : -1;
      if (equals < 0) {
        entries.push4(t, -1, -1, -1);
        const following = peek();
        if (following >= 0 && onLaterLine(t, following)) break; // a half-typed key at the end of the line
        continue;
      }
      const valueHead = rowHead(peek());
      const value = valueHead >= 0 && (valueHead & KIND_MASK) <= HTML ? (code[i++] as number) : -1;
      const separatorHead = rowHead(peek());
      const separator = separatorHead === COMMA || separatorHead === SEMICOLON ? (code[i++] as number) : -1;
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
    const t = code[i] as number;
    const lower = keyword(t);
    if (stack.length === 0) {
      if (lower === 'graph' || lower === 'digraph') {
        i++;
        const name = isValueToken(peek()) && !is(peek(), OPEN_BRACE) ? (code[i++] as number) : -1;
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
      const name = isValueToken(peek()) ? (code[i++] as number) : -1;
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
      const value = isValueToken(peek()) ? (code[i++] as number) : -1;
      assignments.push4(inSubgraph() ? 1 : 0, t, code[i - (value >= 0 ? 2 : 1)] as number, value);
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
      arrows.push(code[i++] as number);
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

/**
 * Calls `found` with the key and value tokens (value -1 when there is none) of every attribute
 * list entry, in text order, then of every graph-level assignment: the settings of the text, read
 * from the rows.
 */
export function forEachSetting(outline: Outline, found: (key: number, value: number) => void): void {
  forEachListEntry(outline, found);
  for (let a = 0; a < outline.count('assignments'); a++) found(outline.field('assignments', a, ASSIGNMENT.key), outline.field('assignments', a, ASSIGNMENT.value));
}

/** The key and value tokens (value -1 when there is none) of every attribute list entry, in text order. */
export function forEachListEntry(outline: Outline, found: (key: number, value: number) => void): void {
  for (let e = 0; e < outline.count('entries'); e++) found(outline.field('entries', e, ENTRY.key), outline.field('entries', e, ENTRY.value));
}

/** The row of the attribute list whose brackets surround the offset (an unterminated list runs to its last entry), or -1. */
export function listAt(outline: Outline, offset: number): number {
  // Lists never overlap: only the last one opening before the offset can surround it.
  const row = lastIndexBefore(outline.count('lists'), (l) => outline.startOf(outline.field('lists', l, LIST.open)) < offset);
  if (row < 0) return -1;
  const close = outline.field('lists', row, LIST.close);
  return offset <= (close >= 0 ? outline.startOf(close) : listEnd(outline, row)) ? row : -1;
}

function listEnd(outline: Outline, row: number): number {
  const lastEntry = outline.field('lists', row, LIST.entriesTo) - 1;
  if (lastEntry < outline.field('lists', row, LIST.entriesFrom)) return outline.endOf(outline.field('lists', row, LIST.open));
  for (const field of [ENTRY.separator, ENTRY.value, ENTRY.equals, ENTRY.key]) {
    const t = outline.field('entries', lastEntry, field);
    if (t >= 0) return outline.endOf(t);
  }
  return outline.endOf(outline.field('lists', row, LIST.open));
}

/** The last k in [0, length) with `test(k)` (which must hold for a prefix), else -1. */
function lastIndexBefore(length: number, test: (k: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (test(mid)) low = mid + 1;
    else high = mid;
  }
  return low - 1;
}

/** The token containing the offset (or ending exactly at it), comments included, or -1. */
export function tokenAt(outline: Outline, offset: number): number {
  const t = lastIndexBefore(outline.tokenCount, (k) => outline.startOf(k) <= offset);
  if (t < 0 || outline.endOf(t) < offset) return -1;
  return t;
}

/** The last code token that ends at or before the offset, or -1. */
export function tokenBefore(outline: Outline, offset: number): number {
  for (let t = lastIndexBefore(outline.tokenCount, (k) => outline.endOf(k) <= offset); t >= 0; t--) if (outline.kindOf(t) !== COMMENT) return t;
  return -1;
}
