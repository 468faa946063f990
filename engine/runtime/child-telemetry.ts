import type { RunEvent } from './events';
import type { Outcome } from './outcome';
import { isSuccessful } from '../model/stage-status';

type ChildStatus = 'running' | 'completed' | 'failed';

/** What a supervisor knows of a child pipeline, as the `stack.child.*` context keys. */
export interface ChildSnapshot {
  readonly 'stack.child.status': ChildStatus;
  /** The child's final status once it has finished (`success`, `fail`, …), else empty. */
  readonly 'stack.child.outcome': string;
  /** The node the child is running now (empty between nodes and once finished). */
  readonly 'stack.child.active_node': string;
  readonly 'stack.child.last_node': string;
  readonly 'stack.child.last_status': string;
  readonly 'stack.child.completed_count': number;
  readonly 'stack.child.retry_count': number;
  readonly 'stack.child.failure_reason': string;
}

/**
 * Folds a child's event stream (its own walk only: events of walks nested inside it are not its
 * nodes) and its final outcome into a snapshot.
 */
export class ChildTelemetry {
  private status: ChildStatus = 'running';
  private activeNode = '';
  private lastNode = '';
  private lastStatus = '';
  private completed = 0;
  private retries = 0;
  private finalOutcome: Outcome | undefined;

  constructor(private readonly scopeId: string) {}

  observe(event: RunEvent): void {
    if (!('scope' in event) || event.scope.id !== this.scopeId) return;
    switch (event.type) {
      case 'node:start':
        this.activeNode = event.nodeId;
        break;
      case 'node:retry':
        this.retries++;
        break;
      case 'node:end':
        this.activeNode = '';
        this.lastNode = event.nodeId;
        this.lastStatus = event.outcome.status;
        this.completed++;
        break;
      default:
        break;
    }
  }

  finished(outcome: Outcome): void {
    this.finalOutcome = outcome;
    this.status = isSuccessful(outcome.status) ? 'completed' : 'failed';
    this.activeNode = '';
  }

  snapshot(): ChildSnapshot {
    return {
      'stack.child.status': this.status,
      'stack.child.outcome': this.finalOutcome?.status ?? '',
      'stack.child.active_node': this.activeNode,
      'stack.child.last_node': this.lastNode,
      'stack.child.last_status': this.lastStatus,
      'stack.child.completed_count': this.completed,
      'stack.child.retry_count': this.retries,
      'stack.child.failure_reason': this.finalOutcome?.failureReason ?? '',
    };
  }
}
