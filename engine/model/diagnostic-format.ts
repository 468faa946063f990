import type { Diagnostic } from './diagnostics';
import { formatPosition } from './source';

/** Compiler-style: `file:line:col severity RULE message`. */
export function formatDiagnostic(file: string, diagnostic: Diagnostic): string {
  const where = diagnostic.range ? `${file}:${formatPosition(diagnostic.range.start)}` : file;
  const rule = diagnostic.code && diagnostic.code !== diagnostic.rule ? `${diagnostic.code} ${diagnostic.rule}` : diagnostic.rule;
  return `${where} ${diagnostic.severity} ${rule} ${diagnostic.message}`;
}

/** The `--json` shape of the conformance README: snake_case keys, ranges one-based. */
export function diagnosticToJson(diagnostic: Diagnostic): Record<string, unknown> {
  return {
    rule: diagnostic.rule,
    ...(diagnostic.code ? { code: diagnostic.code } : {}),
    severity: diagnostic.severity,
    message: diagnostic.message,
    ...(diagnostic.nodeId !== undefined ? { node_id: diagnostic.nodeId } : {}),
    ...(diagnostic.edge ? { edge: [diagnostic.edge.from, diagnostic.edge.to] } : {}),
    ...(diagnostic.range
      ? {
          range: {
            start: { line: diagnostic.range.start.line + 1, column: diagnostic.range.start.character + 1 },
            end: { line: diagnostic.range.end.line + 1, column: diagnostic.range.end.character + 1 },
          },
        }
      : {}),
    ...(diagnostic.fix ? { fix: { title: diagnostic.fix.title, edits: diagnostic.fix.edits.map((e) => ({ start: e.range.start.offset, end: e.range.end.offset, text: e.newText })) } } : {}),
  };
}
