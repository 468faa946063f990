import type { SnapshotBudget, SnapshotId, VisitFiles, WorkspaceStore } from './workspace-snapshot';
import { openWorkspaceStore } from './workspace-snapshot';

/**
 * A run's use of its workspace store: one snapshot when the walk starts, one after every node of
 * the main walk. When snapshots cannot be taken (no git, too large, a git failure) the run goes on
 * without them, and says so once.
 */
export class WorkspaceSnapshotter {
  private store: WorkspaceStore | undefined;
  private latest: SnapshotId | undefined;

  constructor(
    runDirectory: string,
    cwd: string,
    budget: SnapshotBudget | false | undefined,
    private readonly warn: (message: string) => void,
  ) {
    if (budget === false) return;
    const opened = openWorkspaceStore(runDirectory, cwd, budget);
    if (opened.kind === 'unavailable') {
      warn(`workspace snapshots are off for this run: ${opened.reason}; time travel will not restore files and no per-visit file changes are recorded`);
      return;
    }
    this.store = opened.store;
    this.latest = this.take();
  }

  /** The checkpoint's record of the workspace at the boundary being written. */
  checkpointField(): { workspaceSnapshot?: SnapshotId } {
    return this.latest ? { workspaceSnapshot: this.latest } : {};
  }

  /** Snapshots the workspace a node has just left behind; its before is the previous snapshot. */
  visit(): VisitFiles | undefined {
    const before = this.latest;
    const after = this.take();
    this.latest = after;
    return before && after ? { before, after } : undefined;
  }

  private take(): SnapshotId | undefined {
    if (!this.store) return undefined;
    try {
      return this.store.take();
    } catch (error) {
      this.store = undefined;
      this.warn(`workspace snapshots stopped: ${(error as Error).message}; time travel will not restore files from here on`);
      return undefined;
    }
  }
}
