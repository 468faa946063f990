import type { LineIndex, SourceRange, SourceSpan } from './source';

export type Severity = 'error' | 'warning' | 'info';

interface TextEditAt<R> {
  readonly range: R;
  readonly newText: string;
}

/** A machine-applicable fix: applying every edit yields the repaired text. */
interface FixAt<R> {
  readonly title: string;
  readonly edits: readonly TextEditAt<R>[];
}

interface RelatedInformation<R> {
  readonly message: string;
  readonly range: R;
}

export interface EdgeRef {
  readonly from: string;
  readonly to: string;
}

interface DiagnosticAt<R> {
  /** The snake_case rule name (canonical spec names where they exist). */
  readonly rule: string;
  /** The ledger code where one exists (TOPO-001, CMD-001, ...). */
  readonly code?: string;
  readonly severity: Severity;
  readonly message: string;
  readonly nodeId?: string;
  readonly edge?: EdgeRef;
  readonly range?: R;
  readonly related?: readonly RelatedInformation<R>[];
  readonly fix?: FixAt<R>;
}

/** A diagnostic as it leaves the engine (`parseDot`, `validate`, `lint`, `preparePipeline`): ranges in lines and columns. */
export type Diagnostic = DiagnosticAt<SourceRange>;
export type Fix = FixAt<SourceRange>;

/** A diagnostic as the parser, transforms and rules make it: ranges as offsets, like the model's. */
export type SpanDiagnostic = DiagnosticAt<SourceSpan>;
export type SpanFix = FixAt<SourceSpan>;
export type SpanEdit = TextEditAt<SourceSpan>;

/** Lines and columns for a diagnostic's ranges, read from the text's line index. */
function locate(diagnostic: SpanDiagnostic, lineIndex: LineIndex): Diagnostic {
  const { range, related, fix, ...rest } = diagnostic;
  return {
    ...rest,
    ...(range ? { range: lineIndex.rangeOf(range) } : {}),
    ...(related ? { related: related.map((info) => ({ message: info.message, range: lineIndex.rangeOf(info.range) })) } : {}),
    ...(fix ? { fix: { title: fix.title, edits: fix.edits.map((edit) => ({ range: lineIndex.rangeOf(edit.range), newText: edit.newText })) } } : {}),
  };
}

/** The diagnostics with their ranges located in the text (one push each: a spread overflows the stack at ~120k). */
export function locateDiagnostics(diagnostics: Iterable<SpanDiagnostic>, lineIndex: LineIndex): Diagnostic[] {
  const located: Diagnostic[] = [];
  for (const diagnostic of diagnostics) located.push(locate(diagnostic, lineIndex));
  return located;
}

const severityRank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Orders diagnostics by position, then severity, so every consumer shows them the same way. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      (a.range?.start.offset ?? -1) - (b.range?.start.offset ?? -1) ||
      severityRank[a.severity] - severityRank[b.severity] ||
      compareRuleNames(a.rule, b.rule),
  );
}

const lowerSnakeCase = /^[a-z_]*$/;

/**
 * `a.localeCompare(b)`, without its first call's cost where the answer is known: that call sets up
 * ICU's collator (6–9 ms, paid by every fresh process whose diagnostics share a position, as
 * `start_node` and `terminal_node` do). On lower-case letters and `_` the collator orders as the
 * code units do (`_` before the letters); any other name is compared by the collator.
 */
export function compareRuleNames(a: string, b: string): number {
  if (lowerSnakeCase.test(a) && lowerSnakeCase.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return a.localeCompare(b);
}
