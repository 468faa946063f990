import type { SnapshotId, VisitFiles, WorkspaceStore } from './workspace-snapshot';
import { openWorkspaceStore } from './workspace-snapshot';
import type { LeftOut, SnapshotBudget } from './workspace-budget';
import { DEFAULT_SNAPSHOT_BUDGET, describeBudget } from './workspace-budget';
import type { KeptWorkspaceStores } from './kept-workspace-stores';
import { formatBytes } from '../model/bytes';

/** Where a walk that pauses keeps its store for the run's next walk in this process, and the snapshot its checkpoint resumes at. */
interface StoreCarry {
  readonly kept: KeptWorkspaceStores;
  readonly resumedAt: SnapshotId | undefined;
}

/**
 * A run's use of its workspace store: one snapshot when the walk starts, one after every node of
 * the main walk. When snapshots cannot be taken (no git, too large, a git failure) the run goes on
 * without them, and says so once. A path a node leaves that takes the snapshots past their budget
 * is left out of them from then on, with a warning naming it. A walk that goes on from where this
 * process's last walk of the run paused (`carry`) goes on from that walk's store and last snapshot.
 */
export class WorkspaceSnapshotter {
  private store: WorkspaceStore | undefined;
  private latest: SnapshotId | undefined;

  constructor(
    private readonly runDirectory: string,
    cwd: string,
    budget: SnapshotBudget | false | undefined,
    private readonly warn: (message: string) => void,
    private readonly carry?: StoreCarry,
  ) {
    if (budget === false) return;
    const carried = carry?.kept.take(runDirectory, cwd, budget ?? DEFAULT_SNAPSHOT_BUDGET, carry.resumedAt);
    if (carried) {
      this.store = carried.store;
      this.latest = carried.latest;
      this.store.clearStaleIndexLock();
      return;
    }
    const opened = openWorkspaceStore(runDirectory, cwd, budget);
    if (opened.kind === 'unavailable') {
      warn(`workspace snapshots are off for this run: ${opened.reason}; time travel will not restore files and no per-visit file changes are recorded`);
      return;
    }
    this.store = opened.store;
    // The runner holds the run lock: an index lock there is a dead engine's git's.
    this.store.clearStaleIndexLock();
    try {
      this.latest = this.store.take();
      this.leftOut();
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
    const leftOut = after ? this.leftOut() : [];
    return before && after ? { before, after, ...(leftOut.length > 0 ? { over_budget: leftOut } : {}) } : undefined;
  }

  /** The paths the last snapshot left out past the budget, warned about. */
  private leftOut(): string[] {
    const store = this.store;
    const units = store?.leftOut ?? [];
    if (!store || units.length === 0) return [];
    const named = units.map(describeLeftOut).join(', ');
    this.warn(`past the snapshot budget (${describeBudget(store.budget)}; graph attributes snapshot_max_files, snapshot_max_bytes): ${named} ${units.length === 1 ? 'is' : 'are'} no longer snapshotted; time travel and undo leave ${units.length === 1 ? 'it' : 'them'} as ${units.length === 1 ? 'it is' : 'they are'}`);
    return units.map((unit) => unit.path);
  }

  /**
   * The walk is over: no more listening for changes. A walk that `paused` (its last boundary
   * committed) keeps its store for the run's next walk, when it was given somewhere to keep it.
   */
  close(paused: boolean): void {
    this.store?.close();
    if (paused && this.carry && this.store && this.latest) this.carry.kept.keep(this.runDirectory, this.store, this.latest);
  }

  private stop(error: unknown): void {
    this.store?.close();
    this.store = undefined;
    this.warn(`workspace snapshots stopped: ${(error as Error).message}; time travel will not restore files from here on`);
  }
}

function describeLeftOut(unit: LeftOut): string {
  return unit.path.endsWith('/') ? `${unit.path} (${unit.files} files, ${formatBytes(unit.bytes)})` : `${unit.path} (${formatBytes(unit.bytes)})`;
}
