/**
 * The statement structure of a DOT text, recovered from tokens alone: blocks, attribute lists
 * (with whom they belong to), graph-level assignments and node id occurrences. It tolerates any
 * input, so completion and folding work while the engine's parser still rejects the text.
 *
 * Tokens and records are rows of numbers in row stores (token indexes, offsets, record indexes;
 * -1 for absent; row-store.ts), not objects: a 5,000-node text has over 100,000 tokens, and an
 * edit keeps the rows after it as they are, read moved (incremental-outline.ts). Features that scan
 * the whole text may read the records as objects (`lists`, `blocks`…, made once per outline on
 * first read; `tokens`, made on each read); the per-keystroke paths (cursor context, the flow,
 * completion) and the per-version ones (semantic tokens, node occurrences) read rows.
 */
import type { Token, TokenKind } from './scanner';
import { COMMENT, KIND_CODES, KIND_MASK, scanInto, STRING, stringValue, TOKEN_FIELDS, UNCLOSED } from './scanner';
import { IntList } from './int-list';
import { ASSIGNMENT, BLOCK, EDGE, ENTRY, IN_SUBGRAPH, LIST, MARK_FIELDS, NODE_ID, OWNERS, TABLE_FIELDS, TABLES, type ListOwner, type AttributeEntry, type AttributeList, type Assignment, type Block, type NodeIdOccurrence, type OutlineEdge, type OutlineRows, type Table } from './outline-rows';
import { emptyStatementState, firstOpenString, readStatements, tableStores } from './statement-reader';
import { RowStore } from './row-store';

export class Outline {
  private records: Partial<Record<Table, readonly unknown[]>> | undefined;
  private deepest: number | undefined;

  constructor(
    readonly text: string,
    readonly rows: OutlineRows,
  ) {}

  get tokenCount(): number {
    return this.rows.tokens.rowCount;
  }

  /** The kind code of token `t` (see scanner.ts), without UNCLOSED or a punctuation's char. */
  kindOf(t: number): number {
    return this.rows.tokens.at(t * TOKEN_FIELDS) & KIND_MASK;
  }

  startOf(t: number): number {
    return this.rows.tokens.at(t * TOKEN_FIELDS + 1);
  }

  endOf(t: number): number {
    return this.rows.tokens.at(t * TOKEN_FIELDS + 2);
  }

  closed(t: number): boolean {
    return (this.rows.tokens.at(t * TOKEN_FIELDS) & UNCLOSED) === 0;
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
    return this.rows.tables[table].at(row * TABLE_FIELDS[table] + field);
  }

  count(table: Table): number {
    return this.rows.tables[table].rowCount;
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

export function buildOutline(text: string): Outline {
  // Room for a token (three numbers) every four characters, most of them code: a pipeline's rows fit without growing.
  const tokens = new IntList(Math.max(64, (text.length * 3) >> 2));
  const code = new IntList(Math.max(64, text.length >> 2));
  scanInto(text, 0, tokens, code);
  const state = emptyStatementState(code.length);
  const tokenRows = tokens.store(TOKEN_FIELDS);
  const codeRows = code.store(1);
  const partial = new Outline(text, { tokens: tokenRows, code: codeRows, tables: emptyTables(), marks: RowStore.of(new Int32Array(0), MARK_FIELDS), firstOpenString: -1 });
  readStatements(partial, state);
  return new Outline(text, { tokens: tokenRows, code: codeRows, tables: tableStores(state), marks: state.marks.store(MARK_FIELDS), firstOpenString: firstOpenString(tokenRows, 0) });
}

function emptyTables(): Record<Table, RowStore> {
  return Object.fromEntries(TABLES.map((table) => [table, RowStore.of(new Int32Array(0), TABLE_FIELDS[table])])) as Record<Table, RowStore>;
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
