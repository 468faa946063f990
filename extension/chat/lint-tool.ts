import { preparePipeline } from '../../engine/prepare';
import type { Diagnostic } from '../../engine/model/diagnostics';
import type { PipelineToolInput } from './pipeline-input';
import { resolvePipelineSource } from './pipeline-input';

/** One diagnostic as the tool returns it: 1-based line, as people and models count. */
export interface LintEntry {
  readonly rule: string;
  readonly code?: string;
  readonly severity: Diagnostic['severity'];
  readonly message: string;
  readonly line?: number;
  readonly node?: string;
}

export type LintToolResult = { readonly ok: true; readonly file: string; readonly errors: number; readonly warnings: number; readonly diagnostics: readonly LintEntry[] } | { readonly ok: false; readonly message: string };

export function lintEntries(diagnostics: readonly Diagnostic[]): LintEntry[] {
  return diagnostics.map((d) => ({
    rule: d.rule,
    ...(d.code ? { code: d.code } : {}),
    severity: d.severity,
    message: d.message,
    ...(d.range ? { line: d.range.start.line + 1 } : {}),
    ...(d.nodeId ? { node: d.nodeId } : {}),
  }));
}

/** Every validation and lint rule over a pipeline file or inline source. */
export function lintPipelineTool(input: PipelineToolInput, workspaceRoot: string | undefined): LintToolResult {
  const source = resolvePipelineSource(input, workspaceRoot);
  if (!source.ok) return source;
  const prepared = preparePipeline(source.text, { sourcePath: source.sourcePath, ...(input.params ? { params: input.params } : {}), mode: 'lint' });
  const diagnostics = lintEntries(prepared.diagnostics);
  return {
    ok: true,
    file: source.inline ? '(inline source)' : source.sourcePath,
    errors: diagnostics.filter((d) => d.severity === 'error').length,
    warnings: diagnostics.filter((d) => d.severity === 'warning').length,
    diagnostics,
  };
}

export function formatLintResult(result: LintToolResult): string {
  if (!result.ok) return `lint_pipeline: ${result.message}`;
  if (result.diagnostics.length === 0) return `${result.file}: no problems`;
  const lines = result.diagnostics.map((d) => `- ${d.line !== undefined ? `line ${d.line}: ` : ''}**${d.severity}** \`${d.code ?? d.rule}\` ${d.message}`);
  return [`${result.file}: ${result.errors} error(s), ${result.warnings} warning(s)`, ...lines].join('\n');
}
