import type { UsageFields } from './usage';
import type { AgentEvent } from './backend';
import type { FailureKind, Outcome } from './outcome';
import type { StageStatus } from '../model/stage-status';
import type { FailedStep } from './failed-step';
import type { RunState } from './state';
import type { RunEnd } from './run-status';
import type { VisitFiles } from './workspace-snapshot';
import type { QuestionType } from '../model/question-types';

type Phase = 'parse' | 'transform' | 'validate' | 'initialize' | 'execute' | 'finalize';

/** One line of trace.jsonl (ledger per-iteration records): a completed or skipped node visit; LLM visits carry their usage. */
export interface TraceRecord extends Partial<UsageFields> {
  readonly iteration: number;
  readonly node_id: string;
  readonly status: StageStatus;
  readonly preferred_label: string;
  readonly duration_ms: number;
  readonly ts: string;
  readonly is_explicit: boolean;
  readonly attempt: number;
  /** The visit's number within its iteration when it is not the first (its records are in `iteration_N/<node>@K/`). */
  readonly visit?: number;
  /** Parallel branch or sub-pipeline the visit ran in; absent on the main walk. */
  readonly scope?: string;
  /** The edge the walk took out of this visit; absent where the walk ended or jumped (a retry target, a fan-out's join). */
  readonly edge?: EdgeIdentity;
  /** Set when the debugger forced the route out of this node. */
  readonly forced_edge?: { readonly from: string; readonly to: string };
  readonly failure_reason?: string;
  readonly failed_step?: FailedStep;
  readonly cycle_index?: number;
  /** Workspace snapshots (git tree ids in the run's workspace.git) before and after the visit. */
  readonly files?: VisitFiles;
}

export interface EdgeIdentity {
  readonly index: number;
  readonly from: string;
  readonly to: string;
}

/** Where a walk is running: the main walk has no scope; branches and sub-pipelines nest. */
export interface WalkScope {
  /** Stable id: `main`, `main>branch:fan:b1`, `main>sub:review`. */
  readonly id: string;
  readonly kind: 'main' | 'branch' | 'subpipeline';
  /** Enclosing sub-pipeline nodes, outermost first (the debugger's stack). */
  readonly frames: readonly { readonly nodeId: string; readonly sourcePath?: string }[];
}

/** The scope of the run's own walk. */
export const MAIN_SCOPE: WalkScope = { id: 'main', kind: 'main', frames: [] };

/** The typed inspection stream (canonical §9.6), one union for every consumer. */
export type RunEvent =
  | { readonly type: 'phase'; readonly phase: Phase; readonly state: 'start' | 'end' }
  | {
      readonly type: 'run:start';
      readonly runId: string;
      readonly logsRoot: string;
      readonly graphName: string;
      readonly resumed: boolean;
      /** The trace records the run directory already holds (a resume's or a time-travel branch's history; empty for a fresh run). */
      readonly history: readonly TraceRecord[];
    }
  | { readonly type: 'run:end'; readonly status: RunEnd; readonly failureReason?: string; readonly failureKind?: FailureKind; readonly durationMs: number }
  | { readonly type: 'node:start'; readonly scope: WalkScope; readonly nodeId: string; readonly iteration: number; readonly visit: number }
  | { readonly type: 'node:attempt'; readonly scope: WalkScope; readonly nodeId: string; readonly attempt: number }
  | { readonly type: 'node:retry'; readonly scope: WalkScope; readonly nodeId: string; readonly attempt: number; readonly delayMs: number; readonly reason: string }
  | { readonly type: 'node:end'; readonly scope: WalkScope; readonly nodeId: string; readonly iteration: number; readonly outcome: Outcome; readonly durationMs: number }
  | { readonly type: 'node:contract'; readonly scope: WalkScope; readonly nodeId: string; readonly missingOutputs: readonly string[] }
  | { readonly type: 'edge'; readonly scope: WalkScope; readonly edge: EdgeIdentity; readonly loopRestart: boolean; readonly forced: boolean }
  | { readonly type: 'jump'; readonly scope: WalkScope; readonly from: string; readonly to: string; readonly reason: string; readonly failureKind?: FailureKind }
  | { readonly type: 'iteration'; readonly iteration: number }
  | { readonly type: 'checkpoint'; readonly nodeId: string; readonly state: RunState }
  | { readonly type: 'trace'; readonly record: TraceRecord }
  | { readonly type: 'output'; readonly scope: WalkScope; readonly nodeId: string; readonly stream: 'stdout' | 'stderr'; readonly text: string }
  | { readonly type: 'agent'; readonly scope: WalkScope; readonly nodeId: string; readonly event: AgentEvent }
  | { readonly type: 'human:question'; readonly scope: WalkScope; readonly nodeId: string; readonly question: HumanQuestion }
  | { readonly type: 'human:answer'; readonly scope: WalkScope; readonly nodeId: string; readonly answer: string }
  | { readonly type: 'parallel:start'; readonly scope: WalkScope; readonly nodeId: string; readonly branches: readonly string[] }
  | { readonly type: 'parallel:end'; readonly scope: WalkScope; readonly nodeId: string; readonly succeeded: number; readonly failed: number }
  /** Canonical §9.6 ParallelBranchStarted: `branch` is the branch's first node (its id in parallel.results), `index` its edge's position. */
  | { readonly type: 'parallel:branch:start'; readonly scope: WalkScope; readonly nodeId: string; readonly branch: string; readonly index: number }
  /** Canonical §9.6 ParallelBranchCompleted; `status` is skipped for a branch the decided join cancelled. */
  | { readonly type: 'parallel:branch:end'; readonly scope: WalkScope; readonly nodeId: string; readonly branch: string; readonly index: number; readonly durationMs: number; readonly status: StageStatus; readonly success: boolean }
  /** Canonical §9.6 InterviewTimeout: the gate's timeout fired; `defaultChoice` is the option key taken, absent when none was. */
  | { readonly type: 'human:timeout'; readonly scope: WalkScope; readonly nodeId: string; readonly questionId: string; readonly durationMs: number; readonly defaultChoice?: string }
  | { readonly type: 'warning'; readonly message: string; readonly nodeId?: string };

export interface HumanOption {
  readonly key: string;
  readonly label: string;
  readonly to: string;
}

export interface HumanQuestion {
  readonly id: string;
  readonly text: string;
  readonly nodeId: string;
  /** Canonical §6.2: yes_no and confirmation offer two options keyed Y and N. */
  readonly type: QuestionType;
  readonly options: readonly HumanOption[];
  readonly freeform: boolean;
  readonly timeoutMs?: number;
  readonly defaultChoice?: string;
}

type Listener = (event: RunEvent) => void;

/**
 * Fan-out of run events: synchronous listeners plus async iterators that buffer. A consumer that
 * stops reading (breaks out of its loop) unsubscribes itself; it never blocks the run.
 */
export class EventBus {
  private readonly listeners = new Set<Listener>();
  private readonly closeListeners = new Set<() => void>();
  private closed = false;

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: RunEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // A faulty observer must never break the run.
      }
    }
  }

  /** Ends every open stream once it has drained. */
  close(): void {
    this.closed = true;
    for (const listener of [...this.closeListeners]) listener();
    this.closeListeners.clear();
  }

  async *stream(): AsyncGenerator<RunEvent> {
    const queue: RunEvent[] = [];
    let wake: (() => void) | undefined;
    let done = this.closed;
    const off = this.on((event) => {
      queue.push(event);
      wake?.();
    });
    const onClose = () => {
      done = true;
      wake?.();
    };
    this.closeListeners.add(onClose);
    try {
      for (;;) {
        const next = queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (done) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      off();
      this.closeListeners.delete(onClose);
    }
  }
}
