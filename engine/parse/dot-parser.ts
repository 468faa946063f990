import type { Diagnostic } from '../model/diagnostics';
import { locateDiagnostics } from '../model/diagnostics';
import type { Graph } from '../model/graph';
import { LineIndex } from '../model/source';
import { readDot, type ReadGraph, type SyntaxProblem } from './dot-grammar';
import { GraphBuilder } from './graph-builder';
import { inputTooLarge } from './parse-limits';

export interface ParseResult {
  /** Absent only when the text has no usable graph at all (a syntax error, or no digraph). */
  readonly graph?: Graph;
  readonly diagnostics: readonly Diagnostic[];
  readonly lineIndex: LineIndex;
}

export interface ParseOptions {
  /** Absolute path of the file, recorded on the graph so relative paths resolve beside it. */
  readonly sourcePath?: string;
}

/** Parses DOT source into a Graph. Never throws: every problem is a located diagnostic. */
export function parseDot(text: string, options: ParseOptions = {}): ParseResult {
  const lineIndex = new LineIndex(text);
  const syntax = (problem: SyntaxProblem, prefix = ''): Diagnostic => ({ rule: 'syntax', severity: 'error', message: `${prefix}${problem.message}`, range: lineIndex.range(problem.start, problem.end) });
  const tooLarge = inputTooLarge(text);
  if (tooLarge) return { diagnostics: [syntax({ message: tooLarge, start: text.length, end: text.length })], lineIndex };
  const read = readDot(text, () => new GraphBuilder());
  if (read.limit) return { diagnostics: [syntax(read.limit)], lineIndex };
  if (read.problems.length > 0) return { diagnostics: read.problems.map((problem) => syntax(problem, 'DOT syntax error: ')), lineIndex };
  const [first, ...extra] = read.graphs;
  if (!first) {
    return { diagnostics: [{ rule: 'graph_kind', severity: 'error', message: 'No digraph found: a pipeline is one `digraph name { ... }`.', range: lineIndex.range(0, 0) }], lineIndex };
  }
  const kind: Diagnostic[] = [];
  const report = (graph: ReadGraph, message: string) => kind.push({ rule: 'graph_kind', severity: 'error', message, range: lineIndex.range(graph.start, graph.end) });
  for (const graph of extra) report(graph, 'Only one graph per file: this second graph is ignored.');
  if (!first.directed) report(first, 'Pipelines must be directed: use `digraph`, and `->` for edges.');
  if (first.strict) report(first, '`strict` graphs are not supported: remove `strict`.');
  const graph = first.builder.finish(first.name, first.start, first.end, options.sourcePath);
  return { graph, diagnostics: [...kind, ...locateDiagnostics(first.builder.diagnostics, lineIndex)], lineIndex };
}
