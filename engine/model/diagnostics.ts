import type { SourceRange } from './source';

export type Severity = 'error' | 'warning' | 'info';

export interface TextEdit {
  readonly range: SourceRange;
  readonly newText: string;
}

/** A machine-applicable fix: applying every edit yields the repaired text. */
export interface Fix {
  readonly title: string;
  readonly edits: readonly TextEdit[];
}

interface RelatedInformation {
  readonly message: string;
  readonly range: SourceRange;
}

export interface EdgeRef {
  readonly from: string;
  readonly to: string;
}

export interface Diagnostic {
  /** The snake_case rule name (canonical spec names where they exist). */
  readonly rule: string;
  /** The ledger code where one exists (TOPO-001, CMD-001, ...). */
  readonly code?: string;
  readonly severity: Severity;
  readonly message: string;
  readonly nodeId?: string;
  readonly edge?: EdgeRef;
  readonly range?: SourceRange;
  readonly related?: readonly RelatedInformation[];
  readonly fix?: Fix;
}

const severityRank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Orders diagnostics by position, then severity, so every consumer shows them the same way. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      (a.range?.start.offset ?? -1) - (b.range?.start.offset ?? -1) ||
      severityRank[a.severity] - severityRank[b.severity] ||
      a.rule.localeCompare(b.rule),
  );
}
