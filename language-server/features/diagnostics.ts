import type { Diagnostic as LspDiagnostic, DiagnosticRelatedInformation } from 'vscode-languageserver';
import { DiagnosticSeverity } from 'vscode-languageserver';
import type { Diagnostic, Fix, Severity } from '../../engine/model/diagnostics';
import type { SourceRange } from '../../engine/model/source';
import { ruleAnchor } from '../../engine/validate/rule-docs';
import type { CheckedText } from '../analysis/document-store';
import { LineIndex } from '../../engine/model/source';
import type { Token } from '../syntax/scanner';
import { scanFrom } from '../syntax/scanner';
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
  let before = undefined as Token | undefined;
  let last = undefined as Token | undefined;
  const isKeyword = (token: Token | undefined): boolean => token?.kind === 'id' && /^(?:di)?graph$/i.test(token.text);
  const { stoppedAt } = scanFrom(text, 0, (token) => {
    if (token.kind === 'comment') return false;
    if (token.kind === 'punct' && token.text === '{' && (isKeyword(last) || (isKeyword(before) && last?.kind !== 'punct' && last?.kind !== 'arrow'))) return true;
    [before, last] = [last, token];
    return false;
  });
  const lines = new LineIndex(text);
  return stoppedAt && last ? lines.range(last.start, last.end) : lines.range(0, 0);
}
