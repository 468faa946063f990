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
import { builtinRules } from './validate/rules';
import { provenByWholeStatements } from './validate/whole-statements';

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
  /**
   * Lint mode, a text with syntax errors: the statements read whole, as parsed and transformed, so an
   * editor keeps what it knows of the rest. Nothing runs it: `graph` stays absent.
   */
  readonly partial?: { readonly parsed: Graph; readonly graph: Graph };
  /** The text passes a parse limit: nothing of it was read, and nothing should try to recover it. */
  readonly overLimit?: true;
  readonly diagnostics: readonly Diagnostic[];
  readonly lineIndex: LineIndex;
}

/** PARSE → TRANSFORM → VALIDATE (canonical §3.1, ledger six-phase lifecycle). Never throws. */
export function preparePipeline(text: string, options: PrepareOptions = {}): PreparedPipeline {
  const parsed = parseDot(text, options.sourcePath ? { sourcePath: path.resolve(options.sourcePath) } : {});
  const { lineIndex } = parsed;
  if (parsed.graph) {
    const checked = transformAndCheck(parsed.graph, lineIndex, options);
    return { graph: checked.graph, parsed: parsed.graph, diagnostics: sortDiagnostics([...parsed.diagnostics, ...checked.diagnostics]), lineIndex };
  }
  if (options.mode !== 'lint' || !parsed.partial) return { diagnostics: parsed.diagnostics, lineIndex, ...(parsed.overLimit ? { overLimit: true } : {}) };
  const { graph: partial, unread } = parsed.partial;
  const checked = transformAndCheck(partial, lineIndex, options);
  // The parse's and the transforms' findings are about the statements they read: only the rules may rest on the graph's shape.
  const shapeRules = new Set([...builtinRules, ...(options.extraRules ?? [])].filter((rule) => rule.restsOn !== 'statement').map((rule) => rule.name));
  const proven = provenByWholeStatements([...parsed.partial.diagnostics, ...checked.diagnostics], partial, unread, (rule) => !shapeRules.has(rule));
  return { partial: { parsed: partial, graph: checked.graph }, diagnostics: sortDiagnostics([...parsed.diagnostics, ...proven]), lineIndex };
}

/** TRANSFORM → VALIDATE (or LINT) of a parsed graph: the transformed graph and what the phases report. */
function transformAndCheck(graph: Graph, lineIndex: LineIndex, options: PrepareOptions): { graph: Graph; diagnostics: Diagnostic[] } {
  const transformed = applyTransforms(graph, [...builtinTransforms, ...(options.transforms ?? [])], {
    params: options.params ?? {},
    readFile: (file, limit) => (options.files ?? FileScope.anywhere).read(file, limit),
  });
  const check = options.mode === 'lint' ? lint : validate;
  return { graph: transformed.graph, diagnostics: [...locateDiagnostics(transformed.diagnostics, lineIndex), ...check(transformed.graph, lineIndex, options)] };
}
