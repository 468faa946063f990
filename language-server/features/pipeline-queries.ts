/** The extension's questions about a pipeline (host/protocol/language-server.ts), answered from the parse the server holds. */
import { fileURLToPath } from 'node:url';
import { READ_LIMITS, readFileChecked } from '../../engine/io/read-file-checked';
import type { Graph } from '../../engine/model/graph';
import { resolveHandlerType } from '../../engine/model/handler-types';
import type { LineIndex, SourceSpan } from '../../engine/model/source';
import { parseDot } from '../../engine/parse/dot-parser';
import { modelSelectionOf } from '../../engine/runtime/node-config';
import { breakpointsOnGraph } from '../../host/break-targets';
import type { BreakpointTargetsResult, NodeAtResult } from '../../host/protocol/language-server';
import type { DocumentAnalysis, ModelGraphs } from '../analysis/document-analysis';

/** The graphs of a text that parsed whole: only then do breakpoints bind, and only then does a launch run it. */
async function exactGraphs(analysis: DocumentAnalysis): Promise<ModelGraphs | undefined> {
  return analysis.model?.provenance === 'exact' ? analysis.model.graphs() : undefined;
}

export async function breakpointTargets(analysis: DocumentAnalysis, lines: readonly number[]): Promise<BreakpointTargetsResult> {
  const graphs = await exactGraphs(analysis);
  return graphs ? breakpointsOnGraph(graphs.parsed, analysis.lineIndex, lines) : null;
}

/** A pipeline the editor has not handed the server (the graph view still shows a file whose editor closed): read from disk. */
export function breakpointTargetsOnDisk(uri: string, lines: readonly number[]): BreakpointTargetsResult {
  if (!uri.startsWith('file:')) return null;
  let parsed: { readonly graph?: Graph; readonly lineIndex: LineIndex };
  try {
    const file = fileURLToPath(uri);
    parsed = parseDot(readFileChecked(file, READ_LIMITS.pipeline), { sourcePath: file });
  } catch {
    return null;
  }
  return parsed.graph ? breakpointsOnGraph(parsed.graph, parsed.lineIndex, lines) : null;
}

const contains = (span: SourceSpan, offset: number): boolean => span.start <= offset && offset <= span.end;

export async function nodeAt(analysis: DocumentAnalysis, offset: number): Promise<NodeAtResult> {
  // The transformed graph, as a launch sees it: a model stylesheet may set the node's llm_model.
  const graph = (await exactGraphs(analysis))?.graph;
  if (!graph) return null;
  const node = [...graph.nodes.values()].find((candidate) => [...candidate.declarations, ...candidate.references].some((span) => contains(span, offset)));
  return node ? { nodeId: node.id, handler: resolveHandlerType(node), modelSelection: modelSelectionOf(node, graph) } : null;
}
