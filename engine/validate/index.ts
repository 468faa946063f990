import fs from 'node:fs';
import type { FileScope } from '../io/file-scope';
import type { Diagnostic, SpanDiagnostic } from '../model/diagnostics';
import { locateDiagnostics, sortDiagnostics } from '../model/diagnostics';
import type { Graph } from '../model/graph';
import { buildAdjacency } from '../model/graph';
import { handlerTypes } from '../model/handler-types';
import type { LineIndex } from '../model/source';
import type { LintRule, RuleContext } from './rule';
import { builtinRules } from './rules';

export interface ValidateOptions {
  readonly extraRules?: readonly LintRule[];
  readonly customHandlerTypes?: readonly string[];
  readonly fileExists?: (absolutePath: string) => boolean;
  /** The files a run may load (a server's roots); a reference outside them is an error. */
  readonly files?: FileScope;
}

function run(graph: Graph, lineIndex: LineIndex, tiers: ReadonlySet<LintRule['tier']>, options: ValidateOptions): Diagnostic[] {
  const context: RuleContext = {
    graph,
    adjacency: buildAdjacency(graph),
    lineIndex,
    knownHandlerTypes: new Set([...handlerTypes, ...(options.customHandlerTypes ?? [])]),
    fileExists: options.fileExists ?? ((file) => fs.existsSync(file)),
    ...(options.files ? { files: options.files } : {}),
  };
  const diagnostics: SpanDiagnostic[] = [];
  for (const rule of [...builtinRules, ...(options.extraRules ?? [])]) {
    // One push per diagnostic: spreading a rule's output as arguments overflows the stack at ~120k.
    if (tiers.has(rule.tier)) for (const diagnostic of rule.check(context)) diagnostics.push(diagnostic);
  }
  return sortDiagnostics(locateDiagnostics(diagnostics, lineIndex));
}

/** Admission rules (canonical §7.3): a graph with any error diagnostic must not run. */
export function validate(graph: Graph, lineIndex: LineIndex, options: ValidateOptions = {}): Diagnostic[] {
  return run(graph, lineIndex, new Set(['validate']), options);
}

/** validate() plus the advisory rules (TOPO-*, CMD-*, style). Never consulted at run time. */
export function lint(graph: Graph, lineIndex: LineIndex, options: ValidateOptions = {}): Diagnostic[] {
  return run(graph, lineIndex, new Set(['validate', 'lint']), options);
}
