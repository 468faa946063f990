import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from '../engine/runtime/atomic-write';
import type { TraceRecord } from '../engine/runtime/events';
import type { RunState } from '../engine/runtime/state';
import { READ_LIMITS, readFileChecked } from '../engine/io/read-file-checked';

/** A node-boundary checkpoint of the main walk, with how many trace.jsonl lines existed then. */
export interface Boundary {
  readonly state: RunState;
  readonly traceLines: number;
}

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

interface BranchMarker {
  readonly parent_logs_root: string;
  readonly from_step: number;
  readonly from_node: string;
  readonly reason: string;
  readonly created: string;
}

/**
 * Time travel never rewrites a run: the new branch is a sibling run directory holding the pipeline,
 * the manifest, the parent's trace up to the restored boundary, a `branch.json` naming its parent,
 * and the restored checkpoint, so it is itself resumable with `attractor resume`.
 */
export function forkRunDirectory(parentRoot: string, target: string, boundary: Boundary, reason: string): void {
  fs.mkdirSync(target, { recursive: true });
  for (const name of ['pipeline.dot', 'manifest.json']) {
    const from = path.join(parentRoot, name);
    if (fs.existsSync(from)) writeFileAtomic(path.join(target, name), readFileChecked(from, READ_LIMITS.runRecord));
  }
  const tracePath = path.join(parentRoot, 'trace.jsonl');
  const lines = fs.existsSync(tracePath) ? readFileChecked(tracePath, READ_LIMITS.runRecord).split('\n').filter(Boolean).slice(0, boundary.traceLines) : [];
  writeFileAtomic(path.join(target, 'trace.jsonl'), lines.map((line) => `${line}\n`).join(''));
  const marker: BranchMarker = { parent_logs_root: parentRoot, from_step: boundary.state.step, from_node: boundary.state.nextNodeId, reason, created: new Date().toISOString() };
  writeJsonAtomic(path.join(target, 'branch.json'), marker);
  writeJsonAtomic(path.join(target, 'checkpoint.json'), { ...boundary.state, status: 'running' });
}

/** The first unused `<root>.<kind>-<n>` sibling of a run directory. */
export function siblingRunDirectory(root: string, kind: 'branch' | 'restart'): string {
  for (let n = 1; ; n++) {
    const candidate = `${root}.${kind}-${n}`;
    if (!fs.existsSync(candidate)) return candidate;
  }
}
