import type { ContextValues } from '../engine/runtime/context';
import type { EdgeBoundary, NodeBoundary, RunController } from '../engine/runtime/controller';
import type { Outcome } from '../engine/runtime/outcome';
import { CancelledError } from '../engine/runtime/walker';
import type { HoldBreakpoints, HeldOutcome, HeldState, ReleaseMode } from '../host/protocol/serve-api';

const NO_BREAKPOINTS: HoldBreakpoints = { nodes: [], edges: [] };

/**
 * Holds a served run's main walk at node and edge boundaries for a debugger attached over HTTP
 * (`PUT …/breakpoints`, `POST …/pause|continue|step`). Branches of a parallel fan-out and the
 * inside of sub-pipelines run through: the attached debugger follows the run as one thread.
 */
export class RunHold implements RunController {
  private breakpoints = NO_BREAKPOINTS;
  private nodeStops = new Set<string>();
  private edgeStops = new Set<string>();
  /** A pause asked for, or a step taken: hold at the next node boundary of the main walk. */
  private stopAtNextNode: 'step' | 'pause' | undefined;
  private current: { readonly state: HeldState; readonly context: RunContextView; readonly release: () => void } | undefined;
  private lastOutcome: HeldOutcome | null = null;

  constructor(
    private readonly signal: AbortSignal,
    private readonly changed: (held: HeldState | null) => void,
  ) {}

  get held(): HeldState | null {
    return this.current?.state ?? null;
  }

  /** The live context of the held boundary (what the walk will read when released). */
  get heldContext(): ContextValues | undefined {
    return this.current?.context.snapshot();
  }

  get breakpointSet(): HoldBreakpoints {
    return this.breakpoints;
  }

  setBreakpoints(breakpoints: HoldBreakpoints): void {
    this.breakpoints = breakpoints;
    this.nodeStops = new Set(breakpoints.nodes);
    this.edgeStops = new Set(breakpoints.edges.map((edge) => edgeKey(edge.from, edge.to)));
  }

  /** Holds at the next node boundary; a run already held stays so. */
  pause(): void {
    if (!this.current) this.stopAtNextNode = 'pause';
  }

  /**
   * The debugger is gone: its breakpoints and a pause or step it asked for are dropped, and a held
   * run goes on. Returns what was let go, or undefined when the debugger held nothing.
   */
  letGo(): { readonly breakpoints: HoldBreakpoints; readonly held: HeldState | null } | undefined {
    const dropped = { breakpoints: this.breakpoints, held: this.held };
    const holding = dropped.breakpoints.nodes.length + dropped.breakpoints.edges.length > 0 || dropped.held !== null || this.stopAtNextNode !== undefined;
    if (!holding) return undefined;
    this.setBreakpoints(NO_BREAKPOINTS);
    this.stopAtNextNode = undefined;
    this.release('run');
    return dropped;
  }

  /** False when the run is not held. */
  release(mode: ReleaseMode): boolean {
    const current = this.current;
    if (!current) return false;
    this.stopAtNextNode = mode === 'step' ? 'step' : undefined;
    current.release();
    return true;
  }

  beforeNode(boundary: NodeBoundary): Promise<void> | void {
    if (boundary.scope.kind !== 'main') return;
    const reason = this.stopAtNextNode ?? (this.nodeStops.has(boundary.nodeId) ? 'breakpoint' : undefined);
    if (!reason) return;
    this.stopAtNextNode = undefined;
    const { nodeId, step, visit, iteration } = boundary;
    return this.hold({ kind: 'node', reason, nodeId, step, visit, iteration, since: new Date().toISOString(), lastOutcome: this.lastOutcome }, boundary.context);
  }

  afterNode(boundary: NodeBoundary & { readonly outcome: Outcome }): void {
    if (boundary.scope.kind !== 'main') return;
    const { outcome } = boundary;
    this.lastOutcome = { nodeId: boundary.nodeId, status: outcome.status, preferredLabel: outcome.preferredLabel ?? null, notes: outcome.notes ?? null, failureReason: outcome.failureReason ?? null };
  }

  async beforeEdge(boundary: EdgeBoundary): Promise<undefined> {
    const { selected } = boundary;
    if (boundary.scope.kind !== 'main' || !this.edgeStops.has(edgeKey(selected.from, selected.to))) return undefined;
    const edge = { index: selected.index, from: selected.from, to: selected.to };
    await this.hold({ kind: 'edge', reason: 'breakpoint', nodeId: boundary.from, edge, iteration: boundary.iteration, since: new Date().toISOString(), lastOutcome: this.lastOutcome }, boundary.context);
    return undefined;
  }

  private async hold(state: HeldState, context: RunContextView): Promise<void> {
    if (this.signal.aborted) throw new CancelledError('the run was cancelled');
    await new Promise<void>((resolve) => {
      const release = (): void => {
        this.signal.removeEventListener('abort', release);
        this.current = undefined;
        resolve();
      };
      this.signal.addEventListener('abort', release, { once: true });
      this.current = { state, context, release };
      this.changed(state);
    });
    this.changed(null);
    if (this.signal.aborted) throw new CancelledError('the run was cancelled while held');
  }
}

type RunContextView = Pick<NodeBoundary['context'], 'snapshot'>;

function edgeKey(from: string, to: string): string {
  return `${from}->${to}`;
}
