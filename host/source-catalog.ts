import path from 'node:path';
import { READ_LIMITS, readFileChecked } from '../engine/io/read-file-checked';
import type { Graph } from '../engine/model/graph';
import { attributeValue } from '../engine/model/graph';
import type { LineIndex, SourceSpan } from '../engine/model/source';
import { breakTargets, type BreakTarget } from './break-targets';
import { parseDot } from '../engine/parse/dot-parser';
import { resolveDotFile } from '../engine/runtime/runner';

/** Node attributes that name a child pipeline file. */
const CHILD_PIPELINE_KEYS = ['dot_file', 'stack.child_dotfile'] as const;

export type LoadedSource = { readonly ok: true; readonly graph: Graph; readonly lineIndex: LineIndex; readonly targets: ReadonlyMap<number, BreakTarget> } | { readonly ok: false; readonly message: string };

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
    return node ? loaded.lineIndex.positionAt((node.declarations[0] ?? node.idRange).start).line : undefined;
  }

  /** The line of a model range of `file` (the model keeps offsets), as the catalog read the file. */
  lineOf(file: string, span: SourceSpan): number | undefined {
    const loaded = this.load(file);
    return loaded.ok ? loaded.lineIndex.positionAt(span.start).line : undefined;
  }

  /**
   * The program and every pipeline it runs through `dot_file` / `stack.child_dotfile`, each once;
   * undefined when one of them cannot be read or parsed (then nothing can be ruled out).
   */
  pipelineGraphs(program: string): Graph[] | undefined {
    const graphs = new Map<string, Graph>();
    const pending = [path.resolve(program)];
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (graphs.has(file)) continue;
      const loaded = this.load(file);
      if (!loaded.ok) return undefined;
      graphs.set(file, loaded.graph);
      for (const node of loaded.graph.nodes.values()) {
        for (const key of CHILD_PIPELINE_KEYS) {
          const child = attributeValue(node.attributes, key);
          if (child) pending.push(resolveDotFile(child, loaded.graph));
        }
      }
    }
    return [...graphs.values()];
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
  return { ok: true, graph: parsed.graph, lineIndex: parsed.lineIndex, targets: breakTargets(parsed.graph, parsed.lineIndex) };
}
