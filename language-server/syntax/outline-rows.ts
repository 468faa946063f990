/**
 * The row layout of an outline (outline.ts): which tables it keeps, how many numbers a row of each
 * holds and what each number means, and the records the rows read as.
 */
import type { RowStore } from './row-store';
import type { Token } from './scanner';

export type ListOwner = 'node' | 'edge' | 'node-defaults' | 'edge-defaults' | 'graph-defaults';
export const OWNERS: readonly ListOwner[] = ['node', 'edge', 'node-defaults', 'edge-defaults', 'graph-defaults'];
export const NODE_LIST = 0;
export const EDGE_LIST = 1;
export const NODE_DEFAULTS = 2;
export const EDGE_DEFAULTS = 3;
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
export interface Assignment {
  readonly inSubgraph: boolean;
  readonly key: Token;
  readonly equals: Token;
  readonly value?: Token;
}

export interface NodeIdOccurrence {
  readonly token: Token;
  /** A node statement (as opposed to an edge endpoint). */
  readonly declaration: boolean;
}

/** One `a -> b` of an edge statement (a chain `a -> b -> c` is two). */
export interface OutlineEdge {
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
export type Table = (typeof TABLES)[number];
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
  readonly tokens: RowStore;
  /** The indexes of the tokens statements are read from: the tokens without comments. */
  readonly code: RowStore;
  readonly tables: Readonly<Record<Table, RowStore>>;
  readonly marks: RowStore;
  /** Index of the first string left unclosed, or -1: where it ends depends on all the text after it. */
  readonly firstOpenString: number;
}
