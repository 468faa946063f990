/**
 * Formatting: re-indents by nesting, normalises spacing between tokens on a line, and puts each
 * attribute list in canonical order (shape, label, type, prompt, tool_command, then the table's
 * order). Line breaks (up to one blank line), comments and every token's text are kept, and the
 * result is re-parsed: if the graph it describes differs in anything, nothing is changed.
 */
import type { TextEdit } from 'vscode-languageserver';
import { attributeTable } from '../../engine/model/attributes';
import type { Attributes, Graph } from '../../engine/model/graph';
import { parseDot } from '../../engine/parse/dot-parser';
import type { DocumentAnalysis } from '../analysis/document-analysis';
import { offsetsToRange } from '../lsp-convert';
import type { Outline } from '../syntax/outline';
import { buildOutline } from '../syntax/outline';
import type { Token } from '../syntax/scanner';
import { tokenValue } from '../syntax/scanner';

export interface FormatOptions {
  readonly tabSize: number;
  readonly insertSpaces: boolean;
}

const leading = ['shape', 'label', 'type', 'prompt', 'tool_command'];
const rank = new Map<string, number>([...leading, ...attributeTable.map((s) => s.name).filter((n) => !leading.includes(n))].map((name, k) => [name, k]));
const rankOf = (key: Token) => rank.get(tokenValue(key)) ?? rank.size;

export function formatDocument(analysis: DocumentAnalysis, options: FormatOptions): TextEdit[] {
  if (analysis.model?.provenance !== 'exact') return [];
  const formatted = formatText(analysis.outline, options);
  if (formatted === analysis.text || !describesSameGraph(analysis.text, formatted)) return [];
  let start = 0;
  while (start < formatted.length && formatted[start] === analysis.text[start]) start++;
  let end = 0;
  while (end < formatted.length - start && end < analysis.text.length - start && formatted[formatted.length - 1 - end] === analysis.text[analysis.text.length - 1 - end]) end++;
  return [{ range: offsetsToRange(analysis.lineIndex, start, analysis.text.length - end), newText: formatted.slice(start, formatted.length - end) }];
}

function formatText(outline: Outline, options: FormatOptions): string {
  const { tokens, text } = outline;
  const stream = [...tokens];
  const indexByStart = new Map(tokens.map((t, k) => [t.start, k]));
  /** Token indexes whose preceding line breaks are dropped (inside a `key=value`). */
  const joined = new Set<number>();
  for (const list of outline.lists) {
    if (!list.close) continue;
    const first = indexByStart.get(list.open.start) as number;
    const last = indexByStart.get(list.close.start) as number;
    const complete = list.entries.every((e) => e.equals && e.value) && !tokens.slice(first, last).some((t) => t.kind === 'comment');
    if (!complete) continue;
    const sorted = [...list.entries].sort((a, b) => rankOf(a.key) - rankOf(b.key));
    list.entries.forEach((slot, k) => {
      const entry = sorted[k];
      if (!entry?.equals || !entry.value || !slot.equals || !slot.value) return;
      const [keyIndex, equalsIndex, valueIndex] = [slot.key, slot.equals, slot.value].map((t) => indexByStart.get(t.start) as number) as [number, number, number];
      stream[keyIndex] = entry.key;
      stream[equalsIndex] = entry.equals;
      stream[valueIndex] = entry.value;
      joined.add(equalsIndex).add(valueIndex);
    });
  }

  const indentUnit = options.insertSpaces ? ' '.repeat(options.tabSize) : '\t';
  let out = '';
  let depth = 0;
  for (let k = 0; k < stream.length; k++) {
    const token = stream[k] as Token;
    const original = tokens[k] as Token;
    const before = k === 0 ? '' : text.slice((tokens[k - 1] as Token).end, original.start);
    const breaks = joined.has(k) ? 0 : Math.min(countBreaks(before), 2);
    if (isPunct(token, '}') || isPunct(token, ']')) depth = Math.max(0, depth - 1);
    if (k > 0 && breaks > 0) out += `${'\n'.repeat(breaks)}${indentUnit.repeat(depth)}`;
    else if (k > 0) out += spaceBetween(stream[k - 1] as Token, token);
    out += token.text;
    if (isPunct(token, '{') || isPunct(token, '[')) depth++;
  }
  return `${out}\n`;
}

function countBreaks(gap: string): number {
  let count = 0;
  for (const ch of gap) if (ch === '\n') count++;
  return count;
}

function isPunct(token: Token, text: string): boolean {
  return token.kind === 'punct' && token.text === text;
}

function spaceBetween(previous: Token, next: Token): string {
  if (next.kind === 'punct' && ',;]=:'.includes(next.text)) return '';
  if (previous.kind === 'punct' && '[=:'.includes(previous.text)) return '';
  return ' ';
}

/** The same nodes, edges and attribute values, and the same comments in the same order. */
function describesSameGraph(before: string, after: string): boolean {
  const a = parseDot(before).graph;
  const b = parseDot(after).graph;
  if (!a || !b) return false;
  const comments = (text: string) => buildOutline(text).tokens.filter((t) => t.kind === 'comment').map((t) => t.text);
  return graphSignature(a) === graphSignature(b) && JSON.stringify(comments(before)) === JSON.stringify(comments(after));
}

function graphSignature(graph: Graph): string {
  const attributes = (attrs: Attributes) => [...attrs.values()].map((a) => `${a.key}=${a.value}`).sort();
  return JSON.stringify({
    name: graph.name,
    graph: attributes(graph.attributes),
    nodes: [...graph.nodes.values()].map((n) => [n.id, attributes(n.attributes), n.subgraphs]),
    edges: graph.edges.map((e) => [e.from, e.to, attributes(e.attributes)]),
    subgraphs: graph.subgraphs.map((s) => [s.id, s.label, s.nodeIds]),
  });
}
