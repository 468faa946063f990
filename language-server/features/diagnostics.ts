import type { Diagnostic as LspDiagnostic, DiagnosticRelatedInformation } from 'vscode-languageserver';
import { DiagnosticSeverity } from '../lsp-values';
import type { Diagnostic, Fix, Severity } from '../../engine/model/diagnostics';
import type { SourceRange } from '../../engine/model/source';
import { ruleAnchor } from '../../engine/validate/rule-docs';
import type { CheckedText } from '../analysis/document-store';
import { LineIndex } from '../../engine/model/source';
import { IntList } from '../syntax/int-list';
import { ARROW, COMMENT, ID, KIND_MASK, PUNCT, scanInto } from '../syntax/scanner';
import { toLspRange } from '../lsp-convert';

const severities: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

/** What a published diagnostic carries for code actions. */
export interface DiagnosticData {
  readonly rule: string;
  readonly fix?: Fix;
}

/** `rulesDocUri` is the rules page; each rule is a heading there, so `#<rule>` jumps to it. */
export function toLspDiagnostic(diagnostic: Diagnostic, uri: string, rulesDocUri: string | undefined, fallbackRange: SourceRange): LspDiagnostic {
  const related: DiagnosticRelatedInformation[] = (diagnostic.related ?? []).map((info) => ({ message: info.message, location: { uri, range: toLspRange(info.range) } }));
  const data: DiagnosticData = { rule: diagnostic.rule, ...(diagnostic.fix ? { fix: diagnostic.fix } : {}) };
  return {
    range: toLspRange(diagnostic.range ?? fallbackRange),
    severity: severities[diagnostic.severity],
    code: diagnostic.code ?? diagnostic.rule,
    ...(rulesDocUri ? { codeDescription: { href: `${rulesDocUri}#${ruleAnchor(diagnostic.rule, diagnostic.code)}` } } : {}),
    source: 'attractor',
    message: diagnostic.message,
    ...(related.length > 0 ? { relatedInformation: related } : {}),
    data,
  };
}

/** Diagnostics without a range (rare) sit on the graph's name, or its keyword when it has none. */
export function documentDiagnostics(checked: Pick<CheckedText, 'uri' | 'text' | 'diagnostics'>, rulesDocUri: string | undefined): LspDiagnostic[] {
  let fallback: SourceRange | undefined;
  const fallbackRange = (): SourceRange => (fallback ??= graphAnchor(checked.text));
  return checked.diagnostics.map((d) => toLspDiagnostic(d, checked.uri, rulesDocUri, d.range ?? fallbackRange()));
}

/**
 * The name (else the keyword) of the first `graph`/`digraph` header that opens a body, scanning
 * only as far as that header: publishing diagnostics never waits for an outline of the whole text.
 */
function graphAnchor(text: string): SourceRange {
  // The last two code tokens before the one scanned.
  let before = undefined as Scanned | undefined;
  let last = undefined as Scanned | undefined;
  const isKeyword = (token: Scanned | undefined): boolean => token?.kind === ID && /^(?:di)?graph$/i.test(text.slice(token.start, token.end));
  const stoppedAt = scanInto(text, 0, new IntList(), new IntList(), (flagged, start, end) => {
    const kind = flagged & KIND_MASK;
    if (kind === COMMENT) return false;
    if (kind === PUNCT && text[start] === '{' && (isKeyword(last) || (isKeyword(before) && last?.kind !== PUNCT && last?.kind !== ARROW))) return true;
    [before, last] = [last, { kind, start, end }];
    return false;
  });
  const lines = new LineIndex(text);
  return stoppedAt >= 0 && last ? lines.range(last.start, last.end) : lines.range(0, 0);
}

/** A scanned token: its kind code (scanner.ts) and offsets. */
interface Scanned {
  readonly kind: number;
  readonly start: number;
  readonly end: number;
}
