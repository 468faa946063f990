// The one place the engine's inspection events become graph-view state (GraphStateTracker is its
// reducer): the extension's runs forward the messages `apply` returns; the debug adapter and the
// server fold events with `observe` and take the state when they send or draw it. It covers the walk
// of the graph on screen: events from inside a sub-pipeline (another graph) are left out; parallel
// branches run this graph's nodes and are included.
import type { RunEvent, TraceRecord } from '../../engine/runtime/events';
import { GraphStateTracker } from './graph-state';
import type { HumanQuestion } from '../../engine/runtime/events';
import type { ExtensionToWebviewMessage, GraphStateMessage, HumanGateMessage, RunStatus } from '../protocol/webview';

export class RunProjection {
  private readonly graph = new GraphStateTracker();
  private openGates = new Map<string, string>();

  /** The messages this event calls for, in order (often one graphState; none for most chatter). */
  apply(event: RunEvent): ExtensionToWebviewMessage[] {
    if ('scope' in event && event.scope.frames.length > 0) return [];
    const messages: ExtensionToWebviewMessage[] = [];
    if (event.type === 'run:start') this.openGates = new Map();
    if (event.type === 'run:end') {
      for (const gateId of this.openGates.values()) messages.push({ type: 'humanGateClosed', gateId });
      this.openGates.clear();
    }
    if (this.observe(event)) messages.push(this.graphState());
    switch (event.type) {
      case 'run:start':
        messages.push({ type: 'traceEntries', entries: [...event.history], replace: true });
        break;
      case 'trace':
        messages.push({ type: 'traceEntries', entries: [event.record], replace: false });
        break;
      case 'human:question': {
        const { question } = event;
        this.openGates.set(event.nodeId, question.id);
        messages.push(humanGateMessage(question));
        break;
      }
      case 'human:answer': {
        const gateId = this.openGates.get(event.nodeId);
        if (gateId !== undefined) {
          this.openGates.delete(event.nodeId);
          messages.push({ type: 'humanGateClosed', gateId });
        }
        break;
      }
      default:
        break;
    }
    return messages;
  }

  /** Folds an event into the graph state alone; true when it changed. */
  observe(event: RunEvent): boolean {
    return this.graph.apply(event);
  }

  /** The state a run's recorded visits leave: a run read from its directory, which ended (or stopped) as `runStatus`. */
  replay(records: readonly TraceRecord[], runStatus: RunStatus): void {
    this.graph.replay(records, runStatus);
  }

  /** A debugger pause or resume changes only the run status (and, paused at a node boundary, the active node). */
  setPaused(paused: boolean, atNode?: string): GraphStateMessage {
    this.graph.setPaused(paused, atNode);
    return this.graphState();
  }

  graphState(): GraphStateMessage {
    return { type: 'graphState', ...this.graph.snapshot() };
  }
}

/** The graph view's question for an engine human gate. */
export function humanGateMessage(question: HumanQuestion): HumanGateMessage {
  return {
    type: 'humanGate',
    gateId: question.id,
    nodeId: question.nodeId,
    question: question.text,
    options: question.options,
    freeform: question.freeform,
    ...(question.type !== 'multiple_choice' ? { questionType: question.type } : {}),
    ...(question.defaultChoice !== undefined ? { defaultChoice: question.defaultChoice } : {}),
    ...(question.timeoutMs !== undefined ? { timeoutMs: question.timeoutMs } : {}),
  };
}
