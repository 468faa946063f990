// What the grammar hands the graph builder: literals with their offsets, nothing more (no syntax tree).

export interface Literal {
  /** The literal's text: a bare id as written, a quoted string unescaped, an HTML string's inner text. */
  readonly text: string;
  readonly kind: 'id' | 'string' | 'html';
  readonly start: number;
  readonly end: number;
}

export interface ParsedAttribute {
  readonly key: Literal;
  readonly value: Literal;
}

export interface NodeRef {
  readonly id: Literal;
  /** `:port` and `:port:compass`, from the first colon's port to the end. */
  readonly port?: Literal;
}
