import type { SpanDiagnostic } from '../model/diagnostics';
import type { Graph } from '../model/graph';

export interface TransformContext {
  /** Launch parameters (`--param k=v`); absent while authoring. */
  readonly params: Readonly<Record<string, string>>;
  /** Reads a regular file of at most `limit` bytes; otherwise says why not (naming the file and the cap). */
  readonly readFile: (absolutePath: string, limit: number) => { readonly text: string } | { readonly problem: string };
}

export interface TransformResult {
  readonly graph: Graph;
  readonly diagnostics: readonly SpanDiagnostic[];
}

/** Canonical §9.1: a transform returns a new graph and never mutates its input. */
export interface Transform {
  readonly name: string;
  apply(graph: Graph, context: TransformContext): TransformResult;
}

export function applyTransforms(graph: Graph, transforms: readonly Transform[], context: TransformContext): TransformResult {
  const diagnostics: SpanDiagnostic[] = [];
  let current = graph;
  for (const transform of transforms) {
    const result = transform.apply(current, context);
    current = result.graph;
    for (const diagnostic of result.diagnostics) diagnostics.push(diagnostic);
  }
  return { graph: current, diagnostics };
}
