import fs from 'node:fs';
import path from 'node:path';
import { preparePipeline } from '../prepare';
import { READ_LIMITS, readFileChecked } from '../io/read-file-checked';
import type { RecordedBoundary } from './boundary-history';
import { recordedBoundaries } from './boundary-history';
import { forkRunDirectory, siblingRunDirectory, traceLinesWithin } from './branch-run';
import type { RefusedLaunch } from './launch';
import { otherWorkingDirectory, withRunLock } from './launch';
import { loadCheckpoint } from './run-directory';
import type { FileChange, SnapshotId } from './workspace-snapshot';
import type { RestoreRecord } from './workspace-travel';
import { restoreWorkspaceForBranch, restoredWorkingDirectory, undoRestore } from './workspace-travel';
import { hasCheckpoint, runFile } from './run-layout';
import { RUN_FILES } from './run-file-names';

/** A node visit to start again from: `NODE` or `NODE@N` (the N-th visit, 1-based, across iterations). */
export interface VisitTarget {
  readonly nodeId: string;
  readonly visit?: number;
}

export interface TravelOptions {
  /** The working directory the person travelling names: it must be the one the run worked in. */
  readonly cwd: string;
  /** Go back even over files changed by someone other than the run (they stay recoverable with undo). */
  readonly discardChanges?: boolean;
}

export interface Branched {
  readonly kind: 'branched';
  /** The new run directory, beside the original; resume it to continue. */
  readonly directory: string;
  readonly nodeId: string;
  readonly visit: number;
  readonly step: number;
  /** What the restore replaced (for `attractor undo`), when the working directory was put back. */
  readonly restore?: RestoreRecord;
  /** Why the working directory was not put back (time travel then restores the state only). */
  readonly workspaceNotRestored?: string;
}

/** Nothing was done: these files hold changes the run did not make, and going back would discard them. */
export interface ChangedElsewhere {
  readonly kind: 'changed-elsewhere';
  readonly cwd: string;
  readonly changes: readonly FileChange[];
}

const refused = (reason: string): RefusedLaunch => ({ kind: 'refused', diagnostics: [], reason });

/**
 * "Re-run from here": a new branch run beside `runDirectory` that starts at the boundary before the
 * chosen visit — the state then (from boundaries.jsonl) and the working directory then (its
 * snapshot). The original run is only read; its lock and its working directory's are held while the
 * branch is made, so a live engine's run is refused rather than having its files rewritten under it.
 */
export async function branchFromVisit(runDirectory: string, target: VisitTarget, options: TravelOptions): Promise<RefusedLaunch | ChangedElsewhere | Branched> {
  const root = path.resolve(runDirectory);
  if (!hasCheckpoint(root)) return refused(`no checkpoint at ${runFile(root, 'checkpoint')}: is ${root} a run directory?`);
  const boundaries = recordedBoundaries(root);
  const chosen = chooseBoundary(root, boundaries, target);
  if ('kind' in chosen) return chosen;
  const { boundary, visit } = chosen;
  const elsewhere = otherWorkingDirectory(root, boundary.state.cwd, options.cwd);
  if (elsewhere) return refused(elsewhere);
  return withRunLock(root, options.cwd, (): ChangedElsewhere | Branched => {
    const directory = siblingRunDirectory(root, 'branch');
    const request = { cwd: options.cwd, snapshot: boundary.state.workspaceSnapshot, lastSnapshot: lastSnapshotOf(root, boundaries), discardChanges: options.discardChanges === true };
    const workspace = restoreWorkspaceForBranch(root, directory, request);
    if (workspace.kind === 'changed-elsewhere') {
      fs.rmSync(directory, { recursive: true, force: true });
      return workspace;
    }
    forkRunDirectory(root, directory, { state: boundary.state, traceLines: traceLinesWithin(root, boundary.traceBytes) }, `resume --from ${target.nodeId}@${visit}`);
    const outcome = workspace.kind === 'restored' ? { restore: workspace.record } : { workspaceNotRestored: workspace.reason };
    return { kind: 'branched', directory, nodeId: target.nodeId, visit, step: boundary.state.step, ...outcome };
  });
}

export type Undone = { readonly kind: 'undone'; readonly record: RestoreRecord };

/**
 * `attractor undo BRANCH`: the working directory back as the restore that started the branch found
 * it. Refused while an engine walks the branch (or works in that directory).
 */
export async function undoBranchRestore(branchDirectory: string, options: { readonly discardChanges?: boolean } = {}): Promise<RefusedLaunch | ChangedElsewhere | Undone> {
  const root = path.resolve(branchDirectory);
  const cwd = restoredWorkingDirectory(root);
  const undo = () => undoRestore(root, lastSnapshotOf(root, recordedBoundaries(root)), options.discardChanges === true);
  const result = cwd === undefined ? undo() : await withRunLock(root, cwd, undo);
  return result.kind === 'refused' ? refused(result.reason) : result;
}

/** The last snapshot a run took, as its state and its boundaries record it. */
function lastSnapshotOf(root: string, boundaries: readonly RecordedBoundary[]): SnapshotId | undefined {
  try {
    const state = loadCheckpoint(root);
    if (state.workspaceSnapshot) return state.workspaceSnapshot;
  } catch {
    // The boundaries still tell.
  }
  return [...boundaries].reverse().find((b) => b.state.workspaceSnapshot)?.state.workspaceSnapshot;
}

function chooseBoundary(root: string, boundaries: readonly RecordedBoundary[], target: VisitTarget): RefusedLaunch | { boundary: RecordedBoundary; visit: number } {
  const { nodeId, visit } = target;
  if (boundaries.length === 0) return refused(`${root} keeps no node-boundary history (${RUN_FILES.boundaries}): its engine predates resume --from, so only \`attractor resume\` can continue it`);
  const visits = boundaries.filter((b) => b.state.nextNodeId === nodeId);
  if (visits.length === 0) {
    return refused(nodeInPipeline(root, nodeId) === false ? `unknown node "${nodeId}": the pipeline of ${root} has no such node` : `node "${nodeId}" was never visited in ${root}; there is no point before it to start from`);
  }
  if (visit === undefined && visits.length > 1) return refused(`node "${nodeId}" was visited ${visits.length} times in ${root}; name one: ${visits.map((_, i) => `${nodeId}@${i + 1}`).join(', ')}`);
  const index = (visit ?? 1) - 1;
  const boundary = visits[index];
  if (!boundary) return refused(`node "${nodeId}" was visited ${visits.length} time(s) in ${root}; there is no visit ${visit ?? ''}`);
  return { boundary, visit: index + 1 };
}

/** Whether the run's pipeline has the node (undefined when its pipeline.dot cannot be read). */
function nodeInPipeline(root: string, nodeId: string): boolean | undefined {
  try {
    return preparePipeline(readFileChecked(runFile(root, 'pipeline'), READ_LIMITS.pipeline), { mode: 'validate' }).graph?.nodes.has(nodeId);
  } catch {
    return undefined;
  }
}
