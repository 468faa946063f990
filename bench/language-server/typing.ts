// What the language-server benches share: typing that leaves probe offsets in place, and quantiles.
import { TextDocument, type Range } from 'vscode-languageserver-textdocument';

export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(3));
}

export const median = (values: number[]): number => quantile(values, 0.5);

/** A space typed at the top of the file, then deleted: the probe offset is unchanged after each pair. */
export function typingEdit(document: TextDocument, k: number): { document: TextDocument; change: { range: Range; text: string }; shift: number } {
  const insert = k % 2 === 0;
  const change = insert ? { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: ' ' } : { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } }, text: '' };
  return { document: TextDocument.update(document, [change], document.version + 1), change, shift: insert ? 1 : 0 };
}

const TYPED_VALUE = 'timeout="9s", ';

/**
 * An edit that adds tokens inside one statement (an attribute and its value typed into a node's
 * list at `offset`), then one that removes them again: text and probe offsets after each pair are
 * as before. `shift` moves an offset past `offset`.
 */
export function tokenEdit(document: TextDocument, k: number, offset: number): { document: TextDocument; change: { range: Range; text: string }; shift: number } {
  const insert = k % 2 === 0;
  const start = document.positionAt(offset);
  const change = insert ? { range: { start, end: start }, text: TYPED_VALUE } : { range: { start, end: document.positionAt(offset + TYPED_VALUE.length) }, text: '' };
  return { document: TextDocument.update(document, [change], document.version + 1), change, shift: insert ? TYPED_VALUE.length : 0 };
}
