import type { Diagnostic } from '../model/diagnostics';
import type { Graph } from '../model/graph';

export interface TransformContext {
  /** Launch parameters (`--param k=v`); absent while authoring. */
  readonly params: Readonly<Record<string, string>>;
  /** Reads a file relative to the graph's directory; undefined when it cannot be read. */
  readonly readFile: (absolutePath: string) => string | undefined;
}

export interface TransformResult {
  readonly graph: Graph;
  readonly diagnostics: readonly Diagnostic[];
}

/** Canonical §9.1: a transform returns a new graph and never mutates its input. */
export interface Transform {
  readonly name: string;
  apply(graph: Graph, context: TransformContext): TransformResult;
}

export function applyTransforms(graph: Graph, transforms: readonly Transform[], context: TransformContext): TransformResult {
  const diagnostics: Diagnostic[] = [];
  let current = graph;
  for (const transform of transforms) {
    const result = transform.apply(current, context);
    current = result.graph;
    diagnostics.push(...result.diagnostics);
  }
  return { graph: current, diagnostics };
}
