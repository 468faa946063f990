import type { BranchPoint } from '../engine/runtime/branch-run';
import type { TraceRecord } from '../engine/runtime/events';
import type { RunState } from '../engine/runtime/state';

/** A node-boundary checkpoint of the main walk, with how many trace.jsonl lines existed then. */
export type Boundary = BranchPoint;

/**
 * The node-boundary snapshots of one run (from its checkpoint events), by step: the state just
 * before the step-th node execution. restartFrame, stepBack and reverseContinue load one of these.
 */
export class CheckpointHistory {
  private readonly boundaries: Boundary[];
  private traceLines: number;

  /** A branch starts with its parent's boundaries up to the one it was restored from. */
  constructor(inherited?: { readonly parent: CheckpointHistory; readonly from: Boundary }) {
    this.boundaries = inherited ? inherited.parent.boundaries.filter((b) => b.state.step < inherited.from.state.step) : [];
    this.traceLines = inherited?.from.traceLines ?? 0;
  }

  /** Counts records that land in the run's own trace.jsonl (sub-pipelines write their own). */
  noteTrace(record: TraceRecord): void {
    if (!record.scope?.includes('>sub:')) this.traceLines++;
  }

  noteCheckpoint(state: RunState): void {
    // Checkpoints between retry attempts are mid-node, not boundaries.
    if (Object.keys(state.retryCounts).length > 0) return;
    if (this.boundaries.some((b) => b.state.step === state.step)) return;
    this.boundaries.push({ state, traceLines: this.traceLines });
  }

  /** The boundary right before the step-th node execution. */
  at(step: number): Boundary | undefined {
    return this.boundaries.find((b) => b.state.step === step);
  }

  /** The latest boundary strictly before `step`. */
  before(step: number): Boundary | undefined {
    return this.boundaries.filter((b) => b.state.step < step).at(-1);
  }

  /** The earliest boundary (reverseContinue with no breakpoint on the way back). */
  first(): Boundary | undefined {
    return this.boundaries[0];
  }

  /** Boundaries between `from` (exclusive) and `to` (exclusive), latest first: reverseContinue's path back. */
  between(fromStep: number, toStep: number): Boundary[] {
    return this.boundaries.filter((b) => b.state.step > fromStep && b.state.step < toStep).reverse();
  }
}
