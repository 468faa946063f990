/** DOT text for ids and values, as every writer of DOT in the tree spells it (the printer, the view's renderer, quick fixes). */

const BARE_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KEYWORDS = new Set(['node', 'edge', 'graph', 'digraph', 'subgraph', 'strict']);

/**
 * An id or key as DOT: bare when the grammar allows it, otherwise quoted. The parser keeps quoted
 * ids as written (escapes are resolved in values only), so the id goes between the quotes as is.
 */
export function dotId(id: string): string {
  return BARE_ID.test(id) && !KEYWORDS.has(id.toLowerCase()) ? id : `"${id}"`;
}

/**
 * `value` as the inside of a DOT double-quoted string: a backslash is doubled and a quote escaped,
 * and a line break becomes `\n`. The engine's parser reads it back as `value` (a lone CR as a line
 * break), and Graphviz shows it literally: `\N`, `\G`, `\l` and friends stay text.
 */
export function escapeDotString(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replace(/\r?\n|\r/g, '\\n');
}

/** `value` as a DOT double-quoted string (see escapeDotString). */
export function quote(value: string): string {
  return `"${escapeDotString(value)}"`;
}
