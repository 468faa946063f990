/** Definition, references, highlights and rename for node ids. */
import type { DocumentHighlight, Location, Range, TextEdit, WorkspaceEdit } from 'vscode-languageserver';
import { DocumentHighlightKind } from '../lsp-values';
import type { DocumentView } from '../analysis/document-analysis';
import type { NodeOccurrence } from '../analysis/node-occurrences';
import { nodeOccurrences, occurrenceAt } from '../analysis/node-occurrences';
import { offsetsToRange } from '../lsp-convert';

const NODE_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED = new Set(['node', 'edge', 'graph', 'digraph', 'subgraph', 'strict']);

function rangeOf(analysis: DocumentView, occurrence: NodeOccurrence): Range {
  return offsetsToRange(analysis.lineIndex, occurrence.start, occurrence.end);
}

function occurrencesOfIdAt(analysis: DocumentView, offset: number): { target: NodeOccurrence; all: NodeOccurrence[] } | undefined {
  const occurrences = nodeOccurrences(analysis.outline);
  const target = occurrenceAt(occurrences, offset);
  return target ? { target, all: occurrences.filter((o) => o.id === target.id) } : undefined;
}

export function definition(analysis: DocumentView, offset: number): Location[] {
  const found = occurrencesOfIdAt(analysis, offset);
  if (!found) return [];
  const declarations = found.all.filter((o) => o.kind === 'declaration');
  const targets = declarations.length > 0 ? declarations : found.all.filter((o) => o.kind === 'edge').slice(0, 1);
  return targets.map((o) => ({ uri: analysis.uri, range: rangeOf(analysis, o) }));
}

export function references(analysis: DocumentView, offset: number, includeDeclaration: boolean): Location[] {
  const found = occurrencesOfIdAt(analysis, offset);
  if (!found) return [];
  return found.all.filter((o) => includeDeclaration || o.kind !== 'declaration').map((o) => ({ uri: analysis.uri, range: rangeOf(analysis, o) }));
}

/**
 * The places rename would change, the declaration marked as written: not every equal word (a
 * `context.tests` key in a condition is no use of node `tests`). Nothing off a node id.
 */
export function documentHighlights(analysis: DocumentView, offset: number): DocumentHighlight[] {
  const found = occurrencesOfIdAt(analysis, offset);
  if (!found) return [];
  return found.all.map((o) => ({ range: rangeOf(analysis, o), kind: o.kind === 'declaration' ? DocumentHighlightKind.Write : DocumentHighlightKind.Read }));
}

export function prepareRename(analysis: DocumentView, offset: number): { range: Range; placeholder: string } | undefined {
  const found = occurrencesOfIdAt(analysis, offset);
  return found ? { range: rangeOf(analysis, found.target), placeholder: found.target.id } : undefined;
}

export type RenameResult = { ok: true; edit: WorkspaceEdit } | { ok: false; message: string };

export function rename(analysis: DocumentView, offset: number, newName: string): RenameResult {
  const found = occurrencesOfIdAt(analysis, offset);
  if (!found) return { ok: false, message: 'Rename works on node ids.' };
  if (!NODE_ID.test(newName) || RESERVED.has(newName.toLowerCase())) {
    return { ok: false, message: `\`${newName}\` is not a valid node id: use a bare identifier ([A-Za-z_][A-Za-z0-9_]*) that is not a DOT keyword.` };
  }
  if (newName === found.target.id) return { ok: true, edit: { changes: {} } };
  if (nodeOccurrences(analysis.outline).some((o) => o.id === newName)) return { ok: false, message: `A node named \`${newName}\` already exists.` };
  const edits: TextEdit[] = found.all.map((o) => ({ range: rangeOf(analysis, o), newText: newName }));
  return { ok: true, edit: { changes: { [analysis.uri]: edits } } };
}
