import type { RunEvent } from '../engine/runtime/events';
import type { RunTargetEvents } from '../host/run-target';
import { RunProjection } from '../host/view/run-projection';
import { consoleLines } from './console-output';

const GRAPH_STATE_INTERVAL_MS = 50;

/**
 * One run's events as a debug session shows them: Debug Console lines, the trace, and the graph
 * view's state from the one RunProjection. The whole graph state goes out at most every
 * GRAPH_STATE_INTERVAL_MS while the run goes on, so a long walk costs O(1) per node. Human gates
 * are the target's own (it knows the thread a gate stops).
 */
export class RunFeed {
  private readonly projection = new RunProjection();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly events: RunTargetEvents,
    private readonly program: string,
    private readonly logsRoot: () => string,
  ) {}

  event(event: RunEvent): void {
    if (this.closed) return;
    const changed = this.projection.observe(event);
    // The trace goes out as the engine wrote it (the graph view's trace is the same records).
    if (event.type === 'run:start') this.events.view('traceHistory', { records: event.history, logsRoot: this.logsRoot() });
    if (event.type === 'trace') this.events.view('traceEntry', { record: event.record, logsRoot: this.logsRoot() });
    for (const line of consoleLines(event)) this.events.output(line);
    if (!changed) return;
    if (event.type === 'run:end') this.sendGraphState();
    else this.timer ??= setTimeout(() => this.sendGraphState(), GRAPH_STATE_INTERVAL_MS);
  }

  /** A stop or a resume the client is told about: shown at once (paused at a node boundary, that node is the active one). */
  showPaused(paused: boolean, atNode?: string): void {
    this.projection.setPaused(paused, atNode);
    this.sendGraphState();
  }

  /** A resume the client asked for: shown with the next state sent. */
  notePaused(paused: boolean): void {
    this.projection.setPaused(paused);
  }

  /** Sends a state still waiting for its interval (the run is over). */
  flush(): void {
    if (this.timer) this.sendGraphState();
  }

  /** The run was replaced (time travel, restart): nothing more of it is shown. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private sendGraphState(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) return;
    const { type: _type, ...state } = this.projection.graphState();
    this.events.view('graphState', { ...state, program: this.program, logsRoot: this.logsRoot() });
  }
}
