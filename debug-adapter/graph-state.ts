import type { RunEvent } from '../engine/runtime/events';
import type { StageStatus } from '../engine/runtime/outcome';
import type { GraphState, NodeRunState, RunStatus, TakenEdge } from './protocol';

/** Folds the run's events into the graph view's state of the program's own nodes and edges. */
export class GraphStateTracker {
  private runStatus: RunStatus = 'idle';
  private iteration = 0;
  private readonly nodes = new Map<string, NodeRunState>();
  private readonly edges = new Map<number, TakenEdge>();
  private activeNode: string | null = null;
  private currentEdge: number | null = null;

  /** Returns true when the event changed the state. */
  apply(event: RunEvent): boolean {
    // Sub-pipeline nodes live in another file; the view shows the program's graph.
    if ('scope' in event && event.scope.frames.length > 0) return false;
    switch (event.type) {
      case 'run:start':
        this.runStatus = 'running';
        return true;
      case 'node:start': {
        this.nodes.set(event.nodeId, { status: 'running', visits: event.visit, iteration: event.iteration });
        this.activeNode = event.nodeId;
        return true;
      }
      case 'node:end': {
        const before = this.nodes.get(event.nodeId);
        this.nodes.set(event.nodeId, {
          status: event.outcome.status,
          visits: before?.visits ?? 1,
          iteration: event.iteration,
          ...(event.outcome.attemptCount !== undefined ? { lastAttempt: event.outcome.attemptCount } : {}),
        });
        return true;
      }
      case 'edge': {
        const from = this.nodes.get(event.edge.from)?.status;
        const status: StageStatus = from && from !== 'running' ? from : 'success';
        const before = this.edges.get(event.edge.index);
        this.edges.set(event.edge.index, { index: event.edge.index, status, traversals: (before?.traversals ?? 0) + 1 });
        this.currentEdge = event.edge.index;
        return true;
      }
      case 'iteration':
        this.iteration = event.iteration;
        return true;
      case 'run:end':
        this.runStatus = event.status === 'success' ? 'succeeded' : event.status === 'fail' ? 'failed' : 'cancelled';
        this.activeNode = null;
        return true;
      default:
        return false;
    }
  }

  /** Starts from a checkpoint (resume, time travel): visits and outcomes recorded there. */
  seed(visits: Readonly<Record<string, number>>, outcomes: Readonly<Record<string, { readonly status: StageStatus }>>, iteration: number): void {
    this.iteration = iteration;
    for (const [nodeId, count] of Object.entries(visits)) {
      this.nodes.set(nodeId, { status: outcomes[nodeId]?.status ?? 'success', visits: count, iteration });
    }
  }

  setPaused(paused: boolean): void {
    if (this.runStatus === 'running' || this.runStatus === 'paused') this.runStatus = paused ? 'paused' : 'running';
  }

  snapshot(): GraphState {
    return {
      runStatus: this.runStatus,
      iteration: this.iteration,
      nodes: Object.fromEntries(this.nodes),
      takenEdges: [...this.edges.values()],
      activeNode: this.activeNode,
      currentEdge: this.currentEdge,
    };
  }
}
