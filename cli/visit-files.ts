import type { TraceRecord } from '../engine/runtime/events';
import type { FileChange, StoredSnapshots } from '../engine/runtime/workspace-snapshot';
import type { VisitTarget } from '../engine/runtime/rerun';

export function visitChanges(store: StoredSnapshots, record: TraceRecord): FileChange[] | undefined {
  return record.files ? store.changes(record.files.before, record.files.after) : undefined;
}

/** `NODE` or `NODE@N` (the N-th visit, 1-based; absent: the command's default). */
export function parseVisitTarget(target: string): VisitTarget {
  const at = target.lastIndexOf('@');
  if (at < 0) return { nodeId: target };
  const visit = Number(target.slice(at + 1));
  if (!Number.isInteger(visit) || visit < 1) throw new Error(`"${target}": the visit after @ must be a whole number from 1`);
  return { nodeId: target.slice(0, at), visit };
}
