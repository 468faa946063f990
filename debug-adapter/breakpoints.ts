import path from 'node:path';
import type { Condition } from '../engine/conditions/condition';
import type { RunContext } from '../engine/runtime/context';
import type { GraphEdge } from '../engine/model/graph';
import { conditionHolds, interpolateLogMessage, parseContextExpression } from './context-expression';
import type { HitCondition } from './hit-condition';
import { parseHitCondition } from './hit-condition';
import type { BreakTarget } from '../host/break-targets';
import type { SourceCatalog } from '../host/source-catalog';

export interface BreakpointRequest {
  /** Zero-based. */
  readonly line: number;
  readonly condition?: string;
  readonly hitCondition?: string;
  readonly logMessage?: string;
}

export interface FunctionBreakpointRequest {
  readonly name: string;
  readonly condition?: string;
  readonly hitCondition?: string;
}

/** What the session reports back for one requested breakpoint (lines zero-based). */
export interface BreakpointStatus {
  readonly id: number;
  readonly verified: boolean;
  readonly line?: number;
  readonly message?: string;
}

/** Source breakpoints bind to edge indices of their file; function breakpoints to `from->to` in any file. */
type Where =
  | { readonly kind: 'node'; readonly nodeId: string }
  | { readonly kind: 'edge'; readonly edgeIndices: readonly number[] }
  | { readonly kind: 'edge'; readonly from: string; readonly to: string };

interface Breakpoint {
  readonly id: number;
  readonly where?: Where;
  readonly condition?: Condition;
  readonly hit?: HitCondition;
  readonly logMessage?: string;
  /** Traversals of an edge breakpoint's edges (a node's hit count is its visit number). */
  traversals: number;
  readonly request?: BreakpointRequest;
  readonly sourceFile?: string;
  /** The zero-based line the breakpoint bound to (it may have moved from the requested one). */
  readonly line?: number;
  /** Why the breakpoint is unverified. */
  readonly problem?: string;
}

/** The result of checking a boundary: breakpoints to stop at, and logpoint messages to print. */
export interface BreakpointHits {
  readonly stopIds: readonly number[];
  readonly logs: readonly string[];
}

const NO_HITS: BreakpointHits = { stopIds: [], logs: [] };

/** Source and function breakpoints, bound to nodes and edges of the pipeline files. */
export class BreakpointBook {
  private nextId = 1;
  private readonly bySource = new Map<string, Breakpoint[]>();
  private functions: Breakpoint[] = [];
  private functionRequests: readonly { readonly id: number; readonly request: FunctionBreakpointRequest }[] = [];
  /** The pipeline being debugged, once launched. */
  private program: string | undefined;

  constructor(private readonly sources: SourceCatalog) {}

  get isEmpty(): boolean {
    return this.functions.length === 0 && [...this.bySource.values()].every((list) => list.length === 0);
  }

  setSourceBreakpoints(file: string, requests: readonly BreakpointRequest[]): BreakpointStatus[] {
    const key = path.resolve(file);
    const list = requests.map((request) => this.bindSource(key, request, this.nextId++));
    this.bySource.set(key, list);
    return list.map((bp) => this.status(bp));
  }

  /** Re-binds a file's breakpoints after it was re-read; returns those whose status changed. */
  rebind(file: string): BreakpointStatus[] {
    const key = path.resolve(file);
    const before = this.bySource.get(key);
    if (!before) return [];
    const after = before.map((bp) => (bp.request ? this.bindSource(key, bp.request, bp.id) : bp));
    this.bySource.set(key, after);
    return this.changed(before, after);
  }

  private changed(before: readonly Breakpoint[], after: readonly Breakpoint[]): BreakpointStatus[] {
    return after.filter((bp, i) => JSON.stringify(this.status(bp)) !== JSON.stringify(this.status(before[i] as Breakpoint))).map((bp) => this.status(bp));
  }

  setFunctionBreakpoints(requests: readonly FunctionBreakpointRequest[]): BreakpointStatus[] {
    this.functionRequests = requests.map((request) => ({ id: this.nextId++, request }));
    this.functions = this.functionRequests.map(({ id, request }) => this.bindFunction(id, request));
    return this.functions.map((bp) => this.status(bp));
  }

  /** The program function breakpoints must name a node or edge of; returns those whose status changed. */
  setProgram(program: string): BreakpointStatus[] {
    this.program = program;
    const before = this.functions;
    this.functions = this.functionRequests.map(({ id, request }) => this.bindFunction(id, request));
    return this.changed(before, this.functions);
  }

  /** Checked before a node runs; `visit` is the visit about to start. */
  nodeHits(file: string | undefined, nodeId: string, visit: number, context: RunContext): BreakpointHits {
    if (this.isEmpty) return NO_HITS;
    const candidates = [...this.sourceBreakpoints(file), ...this.functions].filter((bp) => bp.where?.kind === 'node' && bp.where.nodeId === nodeId);
    return this.evaluate(candidates, () => visit, context);
  }

  /** Whether a breakpoint (not a logpoint) would stop before this node visit; counts nothing. */
  peekNode(file: string | undefined, nodeId: string, visit: number, context: RunContext): boolean {
    return this.nodeHits(file, nodeId, visit, context).stopIds.length > 0;
  }

  /** Checked when an edge is about to be traversed. */
  edgeHits(file: string | undefined, edge: GraphEdge, context: RunContext): BreakpointHits {
    if (this.isEmpty) return NO_HITS;
    const candidates = [...this.sourceBreakpoints(file), ...this.functions].filter(
      (bp) => bp.where?.kind === 'edge' && ('edgeIndices' in bp.where ? bp.where.edgeIndices.includes(edge.index) : bp.where.from === edge.from && bp.where.to === edge.to),
    );
    return this.evaluate(
      candidates,
      (bp) => ++bp.traversals,
      context,
    );
  }

  /** The nodes and edges of `file` (whose edges are `edges`) that a breakpoint or logpoint is bound to: where a server must hold the run. */
  placesIn(file: string, edges: readonly GraphEdge[]): { readonly nodes: string[]; readonly edges: { readonly from: string; readonly to: string }[] } {
    const nodes = new Set<string>();
    const arrows = new Map<string, { from: string; to: string }>();
    for (const { where } of [...this.sourceBreakpoints(file), ...this.functions]) {
      if (!where) continue;
      if (where.kind === 'node') nodes.add(where.nodeId);
      else if ('edgeIndices' in where) for (const index of where.edgeIndices) {
        const edge = edges[index];
        if (edge) arrows.set(`${edge.from}->${edge.to}`, { from: edge.from, to: edge.to });
      }
      else arrows.set(`${where.from}->${where.to}`, { from: where.from, to: where.to });
    }
    return { nodes: [...nodes], edges: [...arrows.values()] };
  }

  private sourceBreakpoints(file: string | undefined): readonly Breakpoint[] {
    return file ? (this.bySource.get(path.resolve(file)) ?? []) : [];
  }

  private evaluate(candidates: readonly Breakpoint[], count: (bp: Breakpoint) => number, context: RunContext): BreakpointHits {
    if (candidates.length === 0) return NO_HITS;
    const stopIds: number[] = [];
    const logs: string[] = [];
    for (const bp of candidates) {
      const n = count(bp);
      if (bp.condition && !conditionHolds(bp.condition, context)) continue;
      if (bp.hit && !bp.hit(n)) continue;
      if (bp.logMessage !== undefined) logs.push(interpolateLogMessage(bp.logMessage, context));
      else stopIds.push(bp.id);
    }
    return { stopIds, logs };
  }

  private bindFunction(id: number, request: FunctionBreakpointRequest): Breakpoint {
    const options = this.options(request);
    if ('message' in options) return { id, traversals: 0, problem: options.message };
    const arrow = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*->\s*([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(request.name);
    const node = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(request.name);
    const where: Where | undefined = arrow ? { kind: 'edge', from: arrow[1] as string, to: arrow[2] as string } : node ? { kind: 'node', nodeId: node[1] as string } : undefined;
    if (!where) return { id, traversals: 0, problem: `"${request.name}" is neither a node id nor an edge written a->b` };
    const missing = this.missingFromProgram(where);
    return missing ? { id, traversals: 0, problem: missing } : { id, traversals: 0, where, ...options };
  }

  /** Why the program (and its child pipelines) cannot reach a function breakpoint; undefined while it may. */
  private missingFromProgram(where: Where): string | undefined {
    const graphs = this.program ? this.sources.pipelineGraphs(this.program) : undefined;
    if (!graphs) return undefined;
    if (where.kind === 'node') return graphs.some((g) => g.nodes.has(where.nodeId)) ? undefined : `the pipeline has no node ${where.nodeId}`;
    if ('edgeIndices' in where) return undefined;
    return graphs.some((g) => g.edges.some((e) => e.from === where.from && e.to === where.to)) ? undefined : `the pipeline has no edge ${where.from} -> ${where.to}`;
  }

  private bindSource(file: string, request: BreakpointRequest, id: number): Breakpoint {
    const base = { id, traversals: 0, request, sourceFile: file };
    const options = this.options(request);
    if ('message' in options) return { ...base, problem: options.message };
    const resolved = this.sources.resolveLine(file, request.line);
    if ('message' in resolved) return { ...base, problem: resolved.message };
    return { ...base, ...options, where: whereOf(resolved.target), line: resolved.target.line };
  }

  private options(request: { condition?: string; hitCondition?: string; logMessage?: string }): Pick<Breakpoint, 'condition' | 'hit' | 'logMessage'> | { message: string } {
    let condition: Condition | undefined;
    if (request.condition?.trim()) {
      const parsed = parseContextExpression(request.condition);
      if (!parsed.ok) return { message: `condition: ${parsed.message}` };
      // A bare key is a truthiness test written the short way: `done` means `done=true`.
      condition = parsed.expression.kind === 'condition' ? parsed.expression.condition : truthy(parsed.expression.key);
    }
    let hit: HitCondition | undefined;
    if (request.hitCondition?.trim()) {
      const parsed = parseHitCondition(request.hitCondition);
      if (!parsed.ok) return { message: parsed.message };
      hit = parsed.test;
    }
    return { ...(condition ? { condition } : {}), ...(hit ? { hit } : {}), ...(request.logMessage !== undefined ? { logMessage: request.logMessage } : {}) };
  }

  private status(bp: Breakpoint): BreakpointStatus {
    if (!bp.where) return { id: bp.id, verified: false, ...(bp.problem ? { message: bp.problem } : {}), ...(bp.request ? { line: bp.request.line } : {}) };
    return { id: bp.id, verified: true, ...(bp.line !== undefined ? { line: bp.line } : {}) };
  }
}

function whereOf(target: BreakTarget): Where {
  return target.kind === 'node' ? { kind: 'node', nodeId: target.nodeId } : { kind: 'edge', edgeIndices: target.edgeIndices };
}

function truthy(key: string): Condition {
  const parsed = parseContextExpression(`${key}=true`);
  if (!parsed.ok || parsed.expression.kind !== 'condition') throw new Error(`unreachable: ${key}=true does not parse`);
  return parsed.expression.condition;
}
