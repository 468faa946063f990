// Folds the engine's inspection events into the graph view's run state: the reducer of RunProjection
// (run-projection.ts), through which every face projects a run.
import type { RunEvent, TraceRecord } from '../../engine/runtime/events';
import type { StageStatus } from '../../engine/model/stage-status';
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
        this.recordVisits(event.history);
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
      case 'edge':
        this.take(event.edge.index, this.lastStatus.get(event.edge.from) ?? 'success');
        this.currentEdge = event.edge.index;
        return true;
      default:
        return false;
    }
  }

  /** The state a run's recorded visits leave it in: a run opened from its directory, which ended (or stopped) as `runStatus`. */
  replay(records: readonly TraceRecord[], runStatus: RunStatus): void {
    this.reset();
    this.runStatus = runStatus;
    this.recordVisits(records);
  }

  /** Main-walk visits recorded before this run started (a resume's history), with the edges taken out of them. */
  private recordVisits(records: readonly TraceRecord[]): void {
    for (const record of records) {
      if (record.scope !== undefined) continue;
      const visits = (this.nodes.get(record.node_id)?.visits ?? 0) + 1;
      this.nodes.set(record.node_id, { status: record.status, visits, iteration: record.iteration, lastAttempt: record.attempt });
      this.lastStatus.set(record.node_id, record.status);
      this.iteration = record.iteration;
      if (record.edge) this.take(record.edge.index, record.status);
    }
  }

  private take(edgeIndex: number, status: StageStatus): void {
    this.taken.set(edgeIndex, { index: edgeIndex, status, traversals: (this.taken.get(edgeIndex)?.traversals ?? 0) + 1 });
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
