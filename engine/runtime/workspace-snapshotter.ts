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
    try {
      this.latest = this.store.take();
    } catch (error) {
      this.stop(error);
    }
  }

  /** The checkpoint's record of the workspace at the boundary being written. */
  checkpointField(): { workspaceSnapshot?: SnapshotId } {
    return this.latest ? { workspaceSnapshot: this.latest } : {};
  }

  /** Snapshots the workspace a node has just left behind; its before is the previous snapshot. */
  async visit(): Promise<VisitFiles | undefined> {
    const before = this.latest;
    let after: SnapshotId | undefined;
    try {
      after = await this.store?.takeAtBoundary();
    } catch (error) {
      this.stop(error);
    }
    this.latest = after;
    return before && after ? { before, after } : undefined;
  }

  /** The run is over: no more listening for changes. */
  close(): void {
    this.store?.close();
  }

  private stop(error: unknown): void {
    this.store?.close();
    this.store = undefined;
    this.warn(`workspace snapshots stopped: ${(error as Error).message}; time travel will not restore files from here on`);
  }
}
