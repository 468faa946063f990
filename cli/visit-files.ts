import type { TraceRecord } from '../engine/runtime/events';
import type { FileChange, StoredSnapshots } from '../engine/runtime/workspace-snapshot';
import type { VisitTarget } from '../engine/runtime/rerun';
import { quotePath } from '../host/file-changes';

/**
 * What a visit added, changed and deleted. A file it took past the snapshot budget is in its
 * `over_budget`, not among the changes: gone from the snapshots is not gone from the workspace.
 */
export function visitChanges(store: StoredSnapshots, record: TraceRecord): FileChange[] | undefined {
  if (!record.files) return undefined;
  const overBudget = new Set(record.files.over_budget ?? []);
  return store.changes(record.files.before, record.files.after).filter((change) => !(change.kind === 'deleted' && overBudget.has(change.path)));
}

/** Text lines naming the paths a visit took past the snapshot budget. */
export function overBudgetLines(record: TraceRecord): string[] {
  return (record.files?.over_budget ?? []).map((file) => `! ${quotePath(file)} (past the snapshot budget: not snapshotted)`);
}

/** `NODE` or `NODE@N` (the N-th visit, 1-based; absent: the command's default). */
export function parseVisitTarget(target: string): VisitTarget {
  const at = target.lastIndexOf('@');
  if (at < 0) return { nodeId: target };
  const visit = Number(target.slice(at + 1));
  if (!Number.isInteger(visit) || visit < 1) throw new Error(`"${target}": the visit after @ must be a whole number from 1`);
  return { nodeId: target.slice(0, at), visit };
}
