import type { Diagnostic as LspDiagnostic, DiagnosticRelatedInformation } from 'vscode-languageserver';
import { DiagnosticSeverity } from 'vscode-languageserver';
import type { Diagnostic, Fix, Severity } from '../../engine/model/diagnostics';
import type { SourceRange } from '../../engine/model/source';
import { ruleAnchor } from '../../engine/validate/rule-docs';
import type { DocumentView } from '../analysis/document-analysis';
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

/** Diagnostics without a range (rare) sit on the graph's name, read from the view's tokens. */
export function documentDiagnostics(view: DocumentView, diagnostics: readonly Diagnostic[], rulesDocUri: string | undefined): LspDiagnostic[] {
  const graph = view.outline.blocks.find((b) => b.kind === 'graph');
  const anchor = graph?.name ?? graph?.keyword;
  const fallback = anchor ? view.lineIndex.range(anchor.start, anchor.end) : view.lineIndex.range(0, 0);
  return diagnostics.map((d) => toLspDiagnostic(d, view.uri, rulesDocUri, fallback));
}
