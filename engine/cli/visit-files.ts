import type { TraceRecord } from '../runtime/events';
import type { FileChange, WorkspaceStore } from '../runtime/workspace-snapshot';
import { existingWorkspaceStore } from '../runtime/workspace-snapshot';

/** A main-walk trace record with the number of its visit to its node (1-based, across iterations). */
export interface NumberedVisit {
  readonly record: TraceRecord;
  readonly visit: number;
}

export function numberedVisits(records: readonly TraceRecord[]): NumberedVisit[] {
  const seen = new Map<string, number>();
  return records
    .filter((record) => record.scope === undefined)
    .map((record) => {
      const visit = (seen.get(record.node_id) ?? 0) + 1;
      seen.set(record.node_id, visit);
      return { record, visit };
    });
}

/** The run's snapshot store; diffs between stored trees need no workspace, so the run directory stands in for it. */
export function runStore(runDirectory: string): WorkspaceStore | undefined {
  return existingWorkspaceStore(runDirectory, runDirectory);
}

export function visitChanges(store: WorkspaceStore, record: TraceRecord): FileChange[] | undefined {
  return record.files ? store.changes(record.files.before, record.files.after) : undefined;
}

const MARK: Record<FileChange['kind'], string> = { added: 'A', changed: 'M', deleted: 'D' };

export function formatChange(change: FileChange): string {
  return `${MARK[change.kind]} ${change.path}`;
}
