import type { Diagnostic } from '../model/diagnostics';
import { locateDiagnostics } from '../model/diagnostics';
import type { Graph } from '../model/graph';
import { LineIndex } from '../model/source';
import { readDot, type ReadGraph, type SyntaxProblem, type UnreadSpan } from './dot-grammar';
import { GraphBuilder } from './graph-builder';
import { inputTooLarge } from './parse-limits';

/** The statements of a text with syntax errors that were read whole: for lint, never run. */
interface PartialGraph {
  readonly graph: Graph;
  /** The parse's own warnings about what it read (a graph attribute set twice…). */
  readonly diagnostics: readonly Diagnostic[];
  /** The broken statements, from their start to where reading resumed: nothing of them reached the graph but the nodes they mention. */
  readonly unread: readonly UnreadSpan[];
}

export interface ParseResult {
  /** Absent only when the text has no usable graph at all (a syntax error, or no digraph). */
  readonly graph?: Graph;
  /** With syntax errors in a digraph: the statements read whole (see PartialGraph). */
  readonly partial?: PartialGraph;
  /** The text passes a parse limit (its size, subgraph nesting, an edge chain's length): nothing of it is read. */
  readonly overLimit?: true;
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
  if (tooLarge) return { diagnostics: [syntax({ message: tooLarge, start: text.length, end: text.length })], lineIndex, overLimit: true };
  const read = readDot(text, () => new GraphBuilder());
  if (read.limit) return { diagnostics: [syntax(read.limit)], lineIndex, overLimit: true };
  const [first, ...extra] = read.graphs;
  if (read.problems.length > 0) {
    const diagnostics = read.problems.map((problem) => syntax(problem, 'DOT syntax error: '));
    if (!first?.directed) return { diagnostics, lineIndex };
    const graph = first.builder.finish(first.name, first.start, first.end, options.sourcePath);
    return { diagnostics, lineIndex, partial: { graph, diagnostics: locateDiagnostics(first.builder.diagnostics, lineIndex), unread: read.unread } };
  }
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
