import path from 'node:path';
import type { Graph, GraphEdge } from '../engine/model/graph';
import { parseDot } from '../engine/parse/dot-parser';
import { READ_LIMITS, readFileChecked } from '../engine/io/read-file-checked';

/** A line of a .dot file a breakpoint can bind to: a node statement or an edge statement. */
export type BreakTarget = { readonly kind: 'node'; readonly nodeId: string; readonly line: number } | { readonly kind: 'edges'; readonly edgeIndices: readonly number[]; readonly line: number };

export type LoadedSource = { readonly ok: true; readonly graph: Graph; readonly targets: ReadonlyMap<number, BreakTarget> } | { readonly ok: false; readonly message: string };

/**
 * The pipeline files the debugger has seen, parsed once (for breakpoint lines and stack frames).
 * Lines are zero-based here; the session converts to the client's convention.
 */
export class SourceCatalog {
  private readonly cache = new Map<string, LoadedSource>();

  load(file: string): LoadedSource {
    const key = path.resolve(file);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const loaded = parseFile(key);
    this.cache.set(key, loaded);
    return loaded;
  }

  /** Forgets a file so the next load re-reads it (the program is re-read at every launch). */
  invalidate(file: string): void {
    this.cache.delete(path.resolve(file));
  }

  /** The line of the first statement that declares `nodeId` (else its first reference). */
  nodeLine(file: string, nodeId: string): number | undefined {
    const loaded = this.load(file);
    if (!loaded.ok) return undefined;
    const node = loaded.graph.nodes.get(nodeId);
    return node ? (node.declarations[0] ?? node.idRange).start.line : undefined;
  }

  /** Where a breakpoint requested on `line` binds: that line if it holds a statement, else the nearest one that does. */
  resolveLine(file: string, line: number): { readonly target: BreakTarget } | { readonly message: string } {
    const loaded = this.load(file);
    if (!loaded.ok) return { message: loaded.message };
    const exact = loaded.targets.get(line);
    if (exact) return { target: exact };
    let best: BreakTarget | undefined;
    for (const target of loaded.targets.values()) {
      const distance = Math.abs(target.line - line);
      const bestDistance = best ? Math.abs(best.line - line) : Infinity;
      // Ties go to the following statement: the one a reader expects the breakpoint to slide to.
      if (distance < bestDistance || (distance === bestDistance && best !== undefined && target.line > best.line)) best = target;
    }
    return best ? { target: best } : { message: `${path.basename(file)} has no node or edge statement to break on` };
  }
}

function parseFile(file: string): LoadedSource {
  let text: string;
  try {
    text = readFileChecked(file, READ_LIMITS.pipeline);
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const parsed = parseDot(text, { sourcePath: file });
  if (!parsed.graph) {
    const first = parsed.diagnostics[0];
    return { ok: false, message: `${path.basename(file)} does not parse${first ? ` (line ${(first.range?.start.line ?? 0) + 1}: ${first.message})` : ''}; breakpoints bind once it does` };
  }
  return { ok: true, graph: parsed.graph, targets: breakTargets(parsed.graph) };
}

/** Node statements win over edge statements that share a line; an edge chain is one target. */
export function breakTargets(graph: Graph): Map<number, BreakTarget> {
  const targets = new Map<number, BreakTarget>();
  const edgesByLine = new Map<number, GraphEdge[]>();
  for (const edge of graph.edges) {
    const line = edge.range.start.line;
    edgesByLine.set(line, [...(edgesByLine.get(line) ?? []), edge]);
  }
  for (const [line, edges] of edgesByLine) targets.set(line, { kind: 'edges', edgeIndices: edges.map((e) => e.index), line });
  for (const node of graph.nodes.values()) {
    for (const declaration of node.declarations) {
      const line = declaration.start.line;
      targets.set(line, { kind: 'node', nodeId: node.id, line });
    }
  }
  return targets;
}
