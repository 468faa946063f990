import fs from 'node:fs';
import type { BranchPoint } from '../engine/runtime/branch-run';
import type { TraceRecord } from '../engine/runtime/events';
import type { RunState } from '../engine/runtime/state';
import type { SnapshotId } from '../engine/runtime/workspace-snapshot';
import type { PreparedTravel } from '../engine/runtime/workspace-travel';
import { prepareTravel } from '../engine/runtime/workspace-travel';
import { describeChangesElsewhere } from '../host/file-changes';
import type { TravelRefusedEventBody } from '../host/protocol/debug';
import { DISCARD_CHANGES_ARGUMENT } from '../host/protocol/debug';

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

  /** The snapshot of the latest boundary: the working directory as the run last recorded it at one. */
  latestSnapshot(): SnapshotId | undefined {
    return this.boundaries.at(-1)?.state.workspaceSnapshot;
  }

  /** Boundaries between `from` (exclusive) and `to` (exclusive), latest first: reverseContinue's path back. */
  between(fromStep: number, toStep: number): Boundary[] {
    return this.boundaries.filter((b) => b.state.step > fromStep && b.state.step < toStep).reverse();
  }
}

/**
 * The working directory's side of a travel to `boundary` in the new branch `branchRoot`: checked
 * while the run still stands at its boundary (a refusal leaves no branch behind), restored once the
 * session has stopped that run. `lastSnapshot`: the last the run took (its last visit's, before the
 * boundary after it is committed).
 */
export function prepareBranchTravel(parentRoot: string, branchRoot: string, boundary: Boundary, cwd: string, lastSnapshot: SnapshotId | undefined, args: unknown): PreparedTravel {
  const discardChanges = typeof args === 'object' && args !== null && (args as Record<string, unknown>)[DISCARD_CHANGES_ARGUMENT] === true;
  const prepared = prepareTravel(parentRoot, branchRoot, { cwd, snapshot: boundary.state.workspaceSnapshot, lastSnapshot, discardChanges });
  if (prepared.kind === 'changed-elsewhere') fs.rmSync(branchRoot, { recursive: true, force: true });
  return prepared;
}

/** What a refused travel request answers: its error (the list) and the event a client offers "Restore anyway" from. */
export function travelRefusal(command: string, args: unknown, refusal: Extract<PreparedTravel, { kind: 'changed-elsewhere' }>): { message: string; event: TravelRefusedEventBody } {
  const message = `${describeChangesElsewhere(refusal.cwd, refusal.changes)}\nNothing was changed. Keep them elsewhere first, or send ${command} again with "${DISCARD_CHANGES_ARGUMENT}": true (they stay recoverable with \`attractor undo\`).`;
  const argumentsSent = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  return { message, event: { command, arguments: argumentsSent, cwd: refusal.cwd, changes: refusal.changes } };
}
