// Folds the engine's inspection events into the graph view's run state: the reducer of RunProjection
// (run-projection.ts), through which every face projects a run.
import type { RunEvent, TraceRecord } from '../../engine/runtime/events';
import type { StageStatus } from '../../engine/runtime/outcome';
import type { GraphStateMessage, NodeRunState, RunStatus, TakenEdge } from '../protocol/webview';
import { runStatusWords } from '../../engine/runtime/run-status';

export type GraphState = Omit<GraphStateMessage, 'type'>;

export class GraphStateTracker {
  private runStatus: RunStatus = 'idle';
  private iteration = 0;
  private nodes = new Map<string, NodeRunState>();
  private taken = new Map<number, TakenEdge>();
  private lastStatus = new Map<string, StageStatus>();
  private activeNode: string | null = null;
  private currentEdge: number | null = null;

  /**
   * Applies one event; returns true when the state changed. Events from inside a sub-pipeline are
   * left out (its nodes live in another file); parallel branches run this graph's nodes and count.
   */
  apply(event: RunEvent): boolean {
    if ('scope' in event && event.scope.frames.length > 0) return false;
    switch (event.type) {
      case 'run:start':
        this.reset();
        this.runStatus = 'running';
        for (const record of event.history) if (record.scope === undefined) this.recordVisit(record);
        return true;
      case 'run:end':
        this.runStatus = runStatusWords[event.status];
        this.activeNode = null;
        this.currentEdge = null;
        return true;
      case 'iteration':
        this.iteration = event.iteration;
        return true;
      case 'node:start':
        this.iteration = event.iteration;
        this.nodes.set(event.nodeId, { status: 'running', visits: event.visit, iteration: event.iteration });
        this.activeNode = event.nodeId;
        this.currentEdge = null;
        return true;
      case 'node:attempt':
      case 'node:retry': {
        const node = this.nodes.get(event.nodeId);
        if (!node) return false;
        this.nodes.set(event.nodeId, { ...node, lastAttempt: event.attempt });
        return true;
      }
      case 'node:end': {
        const node = this.nodes.get(event.nodeId);
        const attempt = event.outcome.attemptCount ?? node?.lastAttempt;
        this.nodes.set(event.nodeId, { status: event.outcome.status, visits: node?.visits ?? 1, iteration: event.iteration, ...(attempt !== undefined ? { lastAttempt: attempt } : {}) });
        this.lastStatus.set(event.nodeId, event.outcome.status);
        if (this.activeNode === event.nodeId) this.activeNode = null;
        return true;
      }
      case 'edge': {
        const previous = this.taken.get(event.edge.index);
        this.taken.set(event.edge.index, { index: event.edge.index, status: this.lastStatus.get(event.edge.from) ?? 'success', traversals: (previous?.traversals ?? 0) + 1 });
        this.currentEdge = event.edge.index;
        return true;
      }
      default:
        return false;
    }
  }

  /** A main-walk visit recorded before this run started (a resume's history). */
  private recordVisit(record: TraceRecord): void {
    const visits = (this.nodes.get(record.node_id)?.visits ?? 0) + 1;
    this.nodes.set(record.node_id, { status: record.status, visits, iteration: record.iteration, lastAttempt: record.attempt });
    this.lastStatus.set(record.node_id, record.status);
    this.iteration = record.iteration;
  }

  /** A debugger pause or resume; paused at a node boundary, that node is the active one. */
  setPaused(paused: boolean, atNode?: string): void {
    if (this.runStatus === 'running' || this.runStatus === 'paused') this.runStatus = paused ? 'paused' : 'running';
    if (paused && atNode !== undefined) this.activeNode = atNode;
  }

  snapshot(): GraphState {
    return {
      runStatus: this.runStatus,
      iteration: this.iteration,
      activeNode: this.activeNode,
      currentEdge: this.currentEdge,
      nodes: Object.fromEntries(this.nodes),
      takenEdges: [...this.taken.values()],
    };
  }

  private reset(): void {
    this.nodes = new Map();
    this.taken = new Map();
    this.lastStatus = new Map();
    this.activeNode = null;
    this.currentEdge = null;
    this.iteration = 0;
  }
}
