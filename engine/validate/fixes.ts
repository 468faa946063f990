import type { SpanFix, SpanEdit } from '../model/diagnostics';
import type { Attribute, Graph, GraphNode } from '../model/graph';
import { keySpanOf, valueSpanOf } from '../model/graph';
import { dotId, escapeDotString, quote } from '../model/dot-text';
import type { LineIndex, SourceSpan } from '../model/source';
import { locateInValue } from './value-location';

const BARE_VALUE = /^(?:[A-Za-z_][A-Za-z0-9_]*|-?(?:\.\d+|\d+(?:\.\d*)?))$/;

/** A DOT value literal for `value`: bare when DOT allows it, quoted with escapes otherwise. */
function dotValue(value: string, forceQuotes = false): string {
  if (!forceQuotes && BARE_VALUE.test(value)) return value;
  return quote(value);
}

export function replaceFix(title: string, range: SourceSpan, newText: string): SpanFix {
  return { title, edits: [{ range, newText }] };
}

/** Replaces an attribute's whole value, keeping its quoting style where the new value allows. */
export function replaceValueEdit(attribute: Attribute, newValue: string): SpanEdit | undefined {
  const range = valueSpanOf(attribute);
  return range ? { range, newText: dotValue(newValue, attribute.quoted) } : undefined;
}

/** Replaces `value.slice(start, end)` in place (a precise edit inside a quoted value). */
export function replaceInValueEdit(lineIndex: LineIndex, attribute: Attribute, start: number, end: number, replacement: string): SpanEdit | undefined {
  if (!attribute.quoted) {
    const value = attribute.value;
    return replaceValueEdit(attribute, value.slice(0, start) + replacement + value.slice(end));
  }
  const range = locateInValue(lineIndex, attribute, start, end);
  if (!range) return replaceValueEdit(attribute, attribute.value.slice(0, start) + replacement + attribute.value.slice(end));
  return { range, newText: escapeDotString(replacement) };
}

/** Deletes `key=value` together with its separator, so the attribute list stays well-formed. */
export function removeAttributeEdit(lineIndex: LineIndex, attribute: Attribute): SpanEdit | undefined {
  const range = attribute.range;
  if (!range) return undefined;
  const text = lineIndex.text;
  let start = range.start;
  let end = range.end;
  let after = end;
  while (after < text.length && /\s/.test(text[after] ?? '')) after++;
  if (text[after] === ',' || text[after] === ';') end = after + 1;
  else {
    // The last attribute of its list: take the separator before it instead.
    let i = start - 1;
    while (i >= 0 && /\s/.test(text[i] ?? '')) i--;
    if (text[i] === ',' || text[i] === ';') start = i;
  }
  return { range: { start, end }, newText: '' };
}

/** Adds `key=value` at the front of a node statement's attribute list (creating the list if needed). */
export function insertNodeAttributeEdit(lineIndex: LineIndex, node: GraphNode, key: string, value: string): SpanEdit | undefined {
  const statement = node.declarations[0];
  if (!statement) return undefined;
  const pair = `${key}=${dotValue(value)}`;
  const text = lineIndex.text.slice(statement.start, statement.end);
  const bracket = text.indexOf('[');
  if (bracket < 0) {
    const at = statement.start + text.replace(/[\s;]+$/, '').length;
    return { range: { start: at, end: at }, newText: ` [${pair}]` };
  }
  const at = statement.start + bracket + 1;
  const empty = /^\s*\]/.test(text.slice(bracket + 1));
  return { range: { start: at, end: at }, newText: empty ? pair : `${pair}, ` };
}

/** Appends text to an attribute's value (inside the closing quote, or by quoting a bare value). */
export function appendToValueEdit(attribute: Attribute, suffix: string): SpanEdit | undefined {
  const range = valueSpanOf(attribute);
  if (!range) return undefined;
  if (!attribute.quoted) return replaceValueEdit(attribute, attribute.value + suffix);
  const at = range.end - 1;
  return { range: { start: at, end: at }, newText: escapeDotString(suffix) };
}

/** Renames an attribute key, quoting the new name where DOT needs it (`"manager.max_cycles"`). */
export function renameKeyEdit(attribute: Attribute, newKey: string): SpanEdit | undefined {
  const range = keySpanOf(attribute);
  return range ? { range, newText: dotId(newKey) } : undefined;
}

/**
 * Declares a node the graph only mentions in edges, on its own line after the last top-level node statement
 * (or at the top of the body when there is none), indented like its neighbours. The prompt is the
 * id, which is what the implicit node ran with, so declaring it changes nothing but the warning.
 * The place is found once per graph: a rule declares every undeclared node with the one function.
 */
export function nodeDeclarer(lineIndex: LineIndex, graph: Graph): (id: string) => SpanFix | undefined {
  // Top-level statements only: a declaration inside a subgraph would inherit its defaults and classes.
  let last: SourceSpan | undefined;
  for (const node of graph.nodes.values()) {
    if (node.subgraphs.length > 0) continue;
    for (const range of node.declarations) if (!last || range.end > last.end) last = range;
  }
  const text = lineIndex.text;
  const body = text.indexOf('{', graph.range.start);
  if (body < 0) return () => undefined;
  const anchor = last ? last.end : body + 1;
  const lineEnd = text.indexOf('\n', anchor);
  const at = lineEnd < 0 || lineEnd >= graph.range.end ? anchor : lineEnd;
  const indent = last ? (/^[ \t]*/.exec(text.slice(text.lastIndexOf('\n', last.start - 1) + 1)) ?? [''])[0] : '  ';
  return (id) => ({ title: `Declare \`${id}\``, edits: [{ range: { start: at, end: at }, newText: `\n${indent}${dotId(id)} [prompt=${dotValue(id, true)}]` }] });
}
