/** Quick fixes: every engine `fix` on a diagnostic, plus "did you mean" for misspelled attributes, node ids and enum values. */
import type { CodeAction, Diagnostic as LspDiagnostic, Range } from 'vscode-languageserver';
import { CodeActionKind } from '../lsp-values';
import { attributeSpec, attributesFor, attributeTable } from '../../engine/model/attributes';
import { editDistance } from '../../engine/validate/did-you-mean';
import type { DocumentView } from '../analysis/document-analysis';
import { bareKey, nodeIdsOf } from './completion';
import { placeOf } from './cursor-context';
import type { DiagnosticData } from './diagnostics';
import { offsetsToRange, toLspRange } from '../lsp-convert';
import { tokenValue } from '../syntax/scanner';

export function codeActions(analysis: DocumentView, diagnostics: readonly LspDiagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    const data = diagnostic.data as DiagnosticData | undefined;
    if (data?.fix) {
      actions.push({
        title: data.fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        isPreferred: true,
        edit: { changes: { [analysis.uri]: data.fix.edits.map((e) => ({ range: toLspRange(e.range), newText: e.newText })) } },
      });
      continue;
    }
    for (const suggestion of didYouMean(analysis, diagnostic.range)) {
      actions.push({
        title: `Did you mean \`${suggestion.text}\`?`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        edit: { changes: { [analysis.uri]: [{ range: suggestion.range, newText: suggestion.text }] } },
      });
    }
  }
  return actions;
}

interface Suggestion {
  readonly range: Range;
  readonly text: string;
}

/** Looks at the token the diagnostic points at: an unknown key, an unknown node reference or an unknown enum value. */
function didYouMean(analysis: DocumentView, range: Range): Suggestion[] {
  const offset = analysis.lineIndex.offsetAt(range.start.line, range.start.character);
  const within = (t: { start: number; end: number }) => t.start <= offset && offset < t.end;
  for (const list of analysis.outline.lists) {
    for (const entry of list.entries) {
      const key = tokenValue(entry.key);
      const spec = attributeSpec(key);
      if (within(entry.key) && !spec) {
        const names = attributesFor(placeOf(list) === 'subgraph' ? 'graph' : (placeOf(list) as 'graph' | 'node' | 'edge')).map((s) => s.name);
        return nearest(key, names).map((text) => ({ range: offsetsToRange(analysis.lineIndex, entry.key.start, entry.key.end), text: bareKey(text) }));
      }
      if (!entry.value || !within(entry.value) || !spec) continue;
      const value = tokenValue(entry.value);
      const candidates = spec.type.kind === 'node-ref' ? nodeIdsOf(analysis) : spec.type.kind === 'enum' ? spec.type.values.map((v) => v.value) : [];
      if (candidates.includes(value)) return [];
      const inner = entry.value.kind === 'string' ? { start: entry.value.start + 1, end: entry.value.end - 1 } : entry.value;
      return nearest(value, candidates).map((text) => ({ range: offsetsToRange(analysis.lineIndex, inner.start, inner.end), text }));
    }
  }
  for (const assignment of analysis.outline.assignments) {
    if (within(assignment.key) && !attributeSpec(tokenValue(assignment.key))) {
      const names = attributeTable.filter((s) => s.scopes.includes('graph')).map((s) => s.name);
      return nearest(tokenValue(assignment.key), names).map((text) => ({ range: offsetsToRange(analysis.lineIndex, assignment.key.start, assignment.key.end), text }));
    }
  }
  return [];
}

/** Up to three candidates within an edit distance (the linter's did-you-mean metric) that scales with the word. */
export function nearest(word: string, candidates: readonly string[]): string[] {
  const limit = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  return candidates
    .map((candidate) => ({ candidate, distance: editDistance(word, candidate) }))
    .filter((c) => c.distance <= limit && c.candidate !== word)
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, 3)
    .map((c) => c.candidate);
}
