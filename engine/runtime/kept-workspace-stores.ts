import path from 'node:path';
import { fileIdentity } from './file-identity';
import { runFile } from './run-layout';
import type { SnapshotBudget } from './workspace-budget';
import type { SnapshotId, WorkspaceStore } from './workspace-snapshot';

/** A store as a paused walk left it, and the run directory as that walk's last commit left it. */
interface Kept {
  readonly store: WorkspaceStore;
  readonly latest: SnapshotId;
  readonly checkpoint: string;
}

/** Runs a process keeps stores for at most: a run that went on elsewhere leaves its entry behind until it is pushed out. */
const CAPACITY = 64;

/**
 * The workspace stores of the runs a process walks one piece at a time (a Restate worker walks a run
 * one node visit per durable step, each a walk of its own), kept from one walk of a run to its next:
 * the next walk goes on from the snapshot the last one left, as a single walk goes from node to node,
 * with no store reopened and no snapshot taken again. A kept store serves only a run directory still
 * as its walk left it: the checkpoint file untouched since that walk's last commit (every other
 * engine's walk, on another worker say, rewrites it at its first node boundary) and naming the kept
 * snapshot. Anything else opens the store afresh, as a resume does.
 */
export class KeptWorkspaceStores {
  private readonly kept = new Map<string, Kept>();

  /** After a paused walk's last commit: `store`, whose last snapshot (`latest`) the checkpoint names. */
  keep(runDirectory: string, store: WorkspaceStore, latest: SnapshotId): void {
    const checkpoint = fileIdentity(runFile(runDirectory, 'checkpoint'));
    const key = path.resolve(runDirectory);
    this.kept.delete(key);
    if (checkpoint === undefined) return;
    this.kept.set(key, { store, latest, checkpoint });
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= CAPACITY) break;
      this.kept.delete(oldest);
    }
  }

  /**
   * The store kept for the run in `runDirectory` (and forgotten: one walk uses it at a time) when the
   * walk about to start there resumes from the very checkpoint that kept it, at snapshot `resumedAt`,
   * in the same workspace and budget; else undefined.
   */
  take(runDirectory: string, cwd: string, budget: SnapshotBudget, resumedAt: SnapshotId | undefined): { readonly store: WorkspaceStore; readonly latest: SnapshotId } | undefined {
    const key = path.resolve(runDirectory);
    const kept = this.kept.get(key);
    this.kept.delete(key);
    if (!kept || resumedAt !== kept.latest || fileIdentity(runFile(runDirectory, 'checkpoint')) !== kept.checkpoint) return undefined;
    if (kept.store.cwd !== path.resolve(cwd) || kept.store.budget.maxFiles !== budget.maxFiles || kept.store.budget.maxBytes !== budget.maxBytes) return undefined;
    return kept;
  }
}
