import path from 'node:path';
import { FileScope } from './io/file-scope';
import type { Diagnostic } from './model/diagnostics';
import { locateDiagnostics, sortDiagnostics } from './model/diagnostics';
import type { Graph } from './model/graph';
import type { LineIndex } from './model/source';
import { parseDot } from './parse/dot-parser';
import { stylesheetTransform } from './transform/apply-stylesheet';
import { promptExpansionTransform } from './transform/expand-prompts';
import { launchGoalTransform } from './transform/launch-goal';
import { responseSchemaTransform } from './transform/response-schema';
import type { Transform } from './transform/transform';
import { applyTransforms } from './transform/transform';
import type { ValidateOptions } from './validate';
import { lint, validate } from './validate';

export const builtinTransforms: readonly Transform[] = [launchGoalTransform, stylesheetTransform, promptExpansionTransform, responseSchemaTransform];

export interface PrepareOptions extends ValidateOptions {
  readonly sourcePath?: string;
  readonly params?: Readonly<Record<string, string>>;
  /** Custom transforms, run after the built-ins in registration order (canonical §9.3). */
  readonly transforms?: readonly Transform[];
  /** `validate` for admission (run), `lint` for the advisory rules as well. */
  readonly mode?: 'validate' | 'lint';
}

export interface PreparedPipeline {
  /** The transformed graph; absent when the text did not parse. */
  readonly graph?: Graph;
  /** The graph as parsed, before transforms (for tools that map back to the source). */
  readonly parsed?: Graph;
  readonly diagnostics: readonly Diagnostic[];
  readonly lineIndex: LineIndex;
}

/** PARSE → TRANSFORM → VALIDATE (canonical §3.1, ledger six-phase lifecycle). Never throws. */
export function preparePipeline(text: string, options: PrepareOptions = {}): PreparedPipeline {
  const parsed = parseDot(text, options.sourcePath ? { sourcePath: path.resolve(options.sourcePath) } : {});
  if (!parsed.graph) return { diagnostics: parsed.diagnostics, lineIndex: parsed.lineIndex };
  const transformed = applyTransforms(parsed.graph, [...builtinTransforms, ...(options.transforms ?? [])], {
    params: options.params ?? {},
    readFile: (file, limit) => (options.files ?? FileScope.anywhere).read(file, limit),
  });
  const check = options.mode === 'lint' ? lint : validate;
  const diagnostics = [...parsed.diagnostics, ...locateDiagnostics(transformed.diagnostics, parsed.lineIndex), ...check(transformed.graph, parsed.lineIndex, options)];
  return { graph: transformed.graph, parsed: parsed.graph, diagnostics: sortDiagnostics(diagnostics), lineIndex: parsed.lineIndex };
}
