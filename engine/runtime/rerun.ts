import path from 'node:path';
import { preparePipeline } from '../prepare';
import { READ_LIMITS, readFileChecked } from '../io/read-file-checked';
import type { RecordedBoundary } from './boundary-history';
import { recordedBoundaries } from './boundary-history';
import { forkRunDirectory, siblingRunDirectory, traceLinesWithin } from './branch-run';
import type { RefusedLaunch } from './launch';
import { withRunLock } from './launch';
import { restoreWorkspaceForBranch } from './workspace-snapshot';
import { hasCheckpoint, runFile } from './run-layout';

/** A node visit to start again from: `NODE` or `NODE@N` (the N-th visit, 1-based, across iterations). */
export interface VisitTarget {
  readonly nodeId: string;
  readonly visit?: number;
}

export interface Branched {
  readonly kind: 'branched';
  /** The new run directory, beside the original; resume it to continue. */
  readonly directory: string;
  readonly nodeId: string;
  readonly visit: number;
  readonly step: number;
  /** Why the working directory was not put back (time travel then restores the state only). */
  readonly workspaceNotRestored?: string;
}

const refused = (reason: string): RefusedLaunch => ({ kind: 'refused', diagnostics: [], reason });

/**
 * "Re-run from here": a new branch run beside `runDirectory` that starts at the boundary before the
 * chosen visit — the state then (from boundaries.jsonl) and the working directory then (its
 * snapshot). The original run is only read; its lock is held while the branch is made, so a live
 * engine's run is refused rather than having its files rewritten under it.
 */
export async function branchFromVisit(runDirectory: string, target: VisitTarget): Promise<RefusedLaunch | Branched> {
  const root = path.resolve(runDirectory);
  if (!hasCheckpoint(root)) return refused(`no checkpoint at ${runFile(root, 'checkpoint')}: is ${root} a run directory?`);
  const chosen = chooseBoundary(root, target);
  if ('kind' in chosen) return chosen;
  return withRunLock(root, (): Branched => {
    const directory = siblingRunDirectory(root, 'branch');
    const { boundary, visit } = chosen;
    forkRunDirectory(root, directory, { state: boundary.state, traceLines: traceLinesWithin(root, boundary.traceBytes) }, `resume --from ${target.nodeId}@${visit}`);
    const workspace = restoreWorkspaceForBranch(root, directory, boundary.state.cwd, boundary.state.workspaceSnapshot);
    return { kind: 'branched', directory, nodeId: target.nodeId, visit, step: boundary.state.step, ...(workspace.restored ? {} : { workspaceNotRestored: workspace.reason }) };
  });
}

function chooseBoundary(root: string, target: VisitTarget): RefusedLaunch | { boundary: RecordedBoundary; visit: number } {
  const { nodeId, visit } = target;
  const boundaries = recordedBoundaries(root);
  if (boundaries.length === 0) return refused(`${root} keeps no node-boundary history (boundaries.jsonl): its engine predates resume --from, so only \`attractor resume\` can continue it`);
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
