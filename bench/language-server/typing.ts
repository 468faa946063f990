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
