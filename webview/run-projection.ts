// Projects the engine's inspection events onto graph-view messages, so the extension and the debug
// adapter only forward what this returns. It covers the walk of the graph on screen: events from
// inside a sub-pipeline (another graph) are left out; parallel branches run this graph's nodes
// and are included.
import type { RunEvent } from '../engine/runtime/events';
import type { StageStatus } from '../engine/runtime/outcome';
import type { ExtensionToWebviewMessage, GraphStateMessage, NodeRunState, RunStatus, TakenEdge } from './protocol';

export class RunProjection {
  private nodes = new Map<string, NodeRunState>();
  private taken = new Map<number, TakenEdge>();
  private lastStatus = new Map<string, StageStatus>();
  private openGates = new Map<string, string>();
  private activeNode: string | null = null;
  private currentEdge: number | null = null;
  private iteration = 0;
  private runStatus: RunStatus = 'idle';

  /** The messages this event calls for, in order (often one graphState; none for most chatter). */
  apply(event: RunEvent): ExtensionToWebviewMessage[] {
    if ('scope' in event && event.scope.frames.length > 0) return [];
    switch (event.type) {
      case 'run:start':
        this.reset();
        this.runStatus = 'running';
        return [this.graphState()];
      case 'run:end': {
        this.runStatus = event.status === 'success' ? 'succeeded' : event.status === 'fail' ? 'failed' : 'cancelled';
        this.activeNode = null;
        this.currentEdge = null;
        const closed = [...this.openGates.values()].map((gateId): ExtensionToWebviewMessage => ({ type: 'humanGateClosed', gateId }));
        this.openGates.clear();
        return [...closed, this.graphState()];
      }
      case 'iteration':
        this.iteration = event.iteration;
        return [this.graphState()];
      case 'node:start':
        this.iteration = event.iteration;
        this.nodes.set(event.nodeId, { status: 'running', visits: event.visit, iteration: event.iteration });
        this.activeNode = event.nodeId;
        this.currentEdge = null;
        return [this.graphState()];
      case 'node:attempt':
      case 'node:retry': {
        const node = this.nodes.get(event.nodeId);
        if (!node) return [];
        this.nodes.set(event.nodeId, { ...node, lastAttempt: event.attempt });
        return [this.graphState()];
      }
      case 'node:end': {
        const node = this.nodes.get(event.nodeId);
        const attempt = event.outcome.attemptCount ?? node?.lastAttempt;
        this.nodes.set(event.nodeId, { status: event.outcome.status, visits: node?.visits ?? 1, iteration: event.iteration, ...(attempt !== undefined ? { lastAttempt: attempt } : {}) });
        this.lastStatus.set(event.nodeId, event.outcome.status);
        if (this.activeNode === event.nodeId) this.activeNode = null;
        return [this.graphState()];
      }
      case 'edge': {
        const previous = this.taken.get(event.edge.index);
        this.taken.set(event.edge.index, { index: event.edge.index, status: this.lastStatus.get(event.edge.from) ?? 'success', traversals: (previous?.traversals ?? 0) + 1 });
        this.currentEdge = event.edge.index;
        return [this.graphState()];
      }
      case 'trace':
        return [{ type: 'traceEntries', entries: [event.record], replace: false }];
      case 'human:question': {
        const { question } = event;
        this.openGates.set(event.nodeId, question.id);
        return [
          {
            type: 'humanGate',
            gateId: question.id,
            nodeId: question.nodeId,
            question: question.text,
            options: question.options,
            freeform: question.freeform,
            ...(question.defaultChoice !== undefined ? { defaultChoice: question.defaultChoice } : {}),
            ...(question.timeoutMs !== undefined ? { timeoutMs: question.timeoutMs } : {}),
          },
        ];
      }
      case 'human:answer': {
        const gateId = this.openGates.get(event.nodeId);
        if (gateId === undefined) return [];
        this.openGates.delete(event.nodeId);
        return [{ type: 'humanGateClosed', gateId }];
      }
      default:
        return [];
    }
  }

  /** A debugger pause or resume changes only the run status. */
  setPaused(paused: boolean): GraphStateMessage {
    if (this.runStatus === 'running' || this.runStatus === 'paused') this.runStatus = paused ? 'paused' : 'running';
    return this.graphState();
  }

  graphState(): GraphStateMessage {
    return {
      type: 'graphState',
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
    this.openGates = new Map();
    this.activeNode = null;
    this.currentEdge = null;
    this.iteration = 0;
  }
}
