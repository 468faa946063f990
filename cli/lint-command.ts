import type { Diagnostic } from '../engine/model/diagnostics';
import { preparePipeline } from '../engine/prepare';
import { diagnosticToJson, formatDiagnostic } from '../engine/model/diagnostic-format';
import { READ_LIMITS, readFileChecked } from '../engine/io/read-file-checked';

export interface CheckOptions {
  readonly json?: boolean;
  readonly strict?: boolean;
}

interface FileResult {
  readonly file: string;
  readonly diagnostics: readonly Diagnostic[];
}

function check(files: readonly string[], mode: 'lint' | 'validate'): FileResult[] {
  return files.map((file) => {
    let text: string;
    try {
      text = readFileChecked(file, READ_LIMITS.pipeline);
    } catch (error) {
      return { file, diagnostics: [{ rule: 'io', severity: 'error', message: (error as Error).message }] };
    }
    return { file, diagnostics: preparePipeline(text, { sourcePath: file, mode }).diagnostics };
  });
}

/** `attractor lint|validate FILE...`: exit 1 on errors (or on warnings with --strict), else 0. */
export function runCheckCommand(files: readonly string[], mode: 'lint' | 'validate', options: CheckOptions): number {
  const results = check(files, mode);
  const all = results.flatMap((r) => r.diagnostics);
  if (options.json) {
    const diagnostics = results.flatMap((r) => r.diagnostics.map((d) => ({ ...(results.length > 1 ? { file: r.file } : {}), ...diagnosticToJson(d) })));
    process.stdout.write(`${JSON.stringify({ diagnostics })}\n`);
  } else {
    for (const result of results) for (const d of result.diagnostics) process.stdout.write(`${formatDiagnostic(result.file, d)}\n`);
    const errors = all.filter((d) => d.severity === 'error').length;
    const warnings = all.filter((d) => d.severity === 'warning').length;
    process.stderr.write(`${files.length} file(s): ${errors} error(s), ${warnings} warning(s)\n`);
  }
  const failing = all.some((d) => d.severity === 'error' || (options.strict === true && d.severity === 'warning'));
  return failing ? 1 : 0;
}
