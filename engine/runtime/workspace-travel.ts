import fs from 'node:fs';
import path from 'node:path';
import { writeJsonAtomic } from './atomic-write';
import { isRecord } from '../model/json';
import type { FileChange, SnapshotId, WorkspaceStore } from './workspace-snapshot';
import { OVER_BUDGET_FILE, openWorkspaceStore } from './workspace-snapshot';
import { runFile } from './run-layout';

/**
 * Time travel puts the working directory back to a snapshot the way git treats a dirty tree and jj
 * every operation: it refuses while files hold changes the run did not make (unless told to discard
 * them), and it records the state it replaces, so `attractor undo` can always put that back.
 */

/** `restore.json` of a branch run directory: the restore that started it, for `attractor undo`. */
export interface RestoreRecord {
  readonly cwd: string;
  /** The working directory as the restore found it. */
  readonly replaced: SnapshotId;
  /** The snapshot put in its place. */
  readonly restored: SnapshotId;
  /** Permission bits git does not keep (files other than 644 and 755), by path: undo puts them back. */
  readonly modes: Readonly<Record<string, number>>;
  /** Changes someone other than the run had made, discarded on request; `replaced` holds them. */
  readonly discarded: readonly FileChange[];
  /** Paths past the snapshot budget, in no snapshot: left as they were (a directory ends in '/'). */
  readonly overBudget?: readonly string[];
  readonly at: string;
  /** Set by undo: when, and the working directory it replaced in turn. */
  readonly undone?: { readonly at: string; readonly replaced: SnapshotId };
}

export interface TravelRequest {
  /** The working directory the run worked in (and the person travelling named). */
  readonly cwd: string;
  /** The snapshot to go back to; undefined when the run took none there. */
  readonly snapshot: SnapshotId | undefined;
  /** The last snapshot the run took: the working directory as far as the run knows it. */
  readonly lastSnapshot: SnapshotId | undefined;
  /** Go back even over changes the run did not make (they stay recoverable with undo). */
  readonly discardChanges: boolean;
}

export type TravelResult =
  | { readonly kind: 'restored'; readonly record: RestoreRecord }
  /** Files someone other than the run changed, added or deleted since its last snapshot: nothing was touched. */
  | { readonly kind: 'changed-elsewhere'; readonly cwd: string; readonly changes: readonly FileChange[] }
  /** Time travel goes on with the state only; the working directory is as it was. */
  | { readonly kind: 'not-restored'; readonly reason: string };

const RECORD_FILE = 'restore.json';

/** A travel that may go ahead: `restore` puts the working directory back (snapshotting it again first). */
export type PreparedTravel = Exclude<TravelResult, { kind: 'restored' }> | { readonly kind: 'ready'; readonly restore: () => Exclude<TravelResult, { kind: 'changed-elsewhere' }> };

/**
 * Time travel into a new branch run: the working directory goes back to `request.snapshot` (the
 * parent's, seen through the branch's store), after the state being left was snapshotted in the
 * branch's store and found to hold no change but the run's own (or `discardChanges`).
 */
export function restoreWorkspaceForBranch(parentRunDirectory: string, branchRunDirectory: string, request: TravelRequest): TravelResult {
  const prepared = prepareTravel(parentRunDirectory, branchRunDirectory, request);
  return prepared.kind === 'ready' ? prepared.restore() : prepared;
}

/**
 * The check of `restoreWorkspaceForBranch` alone, for a caller that has to end what it is doing
 * between the check and the restore (the debugger stops its run); nothing is touched until `restore`.
 */
export function prepareTravel(parentRunDirectory: string, branchRunDirectory: string, request: TravelRequest): PreparedTravel {
  const { snapshot } = request;
  if (!snapshot) return { kind: 'not-restored', reason: 'the run took no workspace snapshot at that point (snapshots were off or unavailable)' };
  inheritWorkspaceStore(parentRunDirectory, branchRunDirectory);
  const opened = openWorkspaceStore(branchRunDirectory, request.cwd);
  if (opened.kind === 'unavailable') return { kind: 'not-restored', reason: opened.reason };
  const { store } = opened;
  const overBudget = store.overBudgetPaths();
  const changesNow = () => store.changes(request.lastSnapshot ?? snapshot, store.take());
  try {
    const overwritten = overwrittenPastBudget(store, snapshot, overBudget);
    if (overwritten) return { kind: 'not-restored', reason: `${overwritten} went past the snapshot budget after that point, so no snapshot holds it as it is now; restoring would overwrite it with the older version and undo could not bring it back` };
    const changes = changesNow();
    if (changes.length > 0 && !request.discardChanges) return { kind: 'changed-elsewhere', cwd: store.cwd, changes };
  } catch (error) {
    return { kind: 'not-restored', reason: (error as Error).message };
  }
  return {
    kind: 'ready',
    restore: () => {
      try {
        // Again: the record holds the working directory as the restore found it, whatever changed since the check.
        const replaced = store.take();
        const discarded = store.changes(request.lastSnapshot ?? snapshot, replaced);
        const modes = unusualModes(store, replaced);
        store.checkout(snapshot);
        const record: RestoreRecord = { cwd: store.cwd, replaced, restored: snapshot, modes, discarded, ...(overBudget.length > 0 ? { overBudget } : {}), at: new Date().toISOString() };
        writeJsonAtomic(path.join(branchRunDirectory, RECORD_FILE), record, true);
        return { kind: 'restored', record };
      } catch (error) {
        return { kind: 'not-restored', reason: (error as Error).message };
      } finally {
        store.close();
      }
    },
  };
}

export type UndoResult =
  | { readonly kind: 'undone'; readonly record: RestoreRecord }
  | { readonly kind: 'changed-elsewhere'; readonly cwd: string; readonly changes: readonly FileChange[] }
  | { readonly kind: 'refused'; readonly reason: string };

/**
 * Puts the working directory back as the branch's restore found it: contents, deletions, symbolic
 * links and permission bits. What it holds now is snapshotted first (and kept in the record); it
 * must hold no change but the branch run's own, unless `discardChanges`. The caller holds the
 * branch's and the working directory's locks: no engine may be walking either.
 */
export function undoRestore(branchRunDirectory: string, lastSnapshot: SnapshotId | undefined, discardChanges: boolean): UndoResult {
  const record = readRestoreRecord(branchRunDirectory);
  if (typeof record === 'string') return { kind: 'refused', reason: record };
  if (record.undone) return { kind: 'refused', reason: `the restore of ${record.at} was already undone at ${record.undone.at}; what the working directory held then is snapshot ${record.undone.replaced} in ${runFile(branchRunDirectory, 'workspaceStore')}` };
  const opened = openWorkspaceStore(branchRunDirectory, record.cwd);
  if (opened.kind === 'unavailable') return { kind: 'refused', reason: opened.reason };
  const { store } = opened;
  try {
    const current = store.take();
    const changes = store.changes(lastSnapshot ?? record.restored, current);
    if (changes.length > 0 && !discardChanges) return { kind: 'changed-elsewhere', cwd: store.cwd, changes };
    store.checkout(record.replaced);
    restoreModes(store, record);
    const undone: RestoreRecord = { ...record, undone: { at: new Date().toISOString(), replaced: current } };
    writeJsonAtomic(path.join(branchRunDirectory, RECORD_FILE), undone, true);
    return { kind: 'undone', record: undone };
  } catch (error) {
    return { kind: 'refused', reason: (error as Error).message };
  } finally {
    store.close();
  }
}

/** The working directory a branch's restore named, or undefined when it has no restore record. */
export function restoredWorkingDirectory(branchRunDirectory: string): string | undefined {
  const record = readRestoreRecord(branchRunDirectory);
  return typeof record === 'string' ? undefined : record.cwd;
}

/** The branch's restore record, or why there is none to use. */
function readRestoreRecord(branchRunDirectory: string): RestoreRecord | string {
  const file = path.join(branchRunDirectory, RECORD_FILE);
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return missing ? `${branchRunDirectory} has no restore to undo (no ${RECORD_FILE}): it is not a time-travel branch, or its working directory was not restored` : `${file} is unreadable: ${(error as Error).message}`;
  }
  if (!isRecord(data) || typeof data.cwd !== 'string' || typeof data.replaced !== 'string' || typeof data.restored !== 'string' || !isRecord(data.modes) || typeof data.at !== 'string') {
    return `${file} is not a restore record this engine wrote`;
  }
  return data as unknown as RestoreRecord;
}

/**
 * A path past the budget that `snapshot` holds (from before it went past) and the working directory
 * holds too: a checkout would write the old version over it.
 */
function overwrittenPastBudget(store: WorkspaceStore, snapshot: SnapshotId, overBudget: readonly string[]): string | undefined {
  if (overBudget.length === 0) return undefined;
  const held = (file: string) => overBudget.some((out) => (out.endsWith('/') ? file.startsWith(out) : file === out));
  return store.filesOf(snapshot).find((file) => held(file.path) && fs.existsSync(path.join(store.cwd, file.path)))?.path;
}

/** Files of `snapshot` whose permission bits are not the 644 or 755 git would write back. */
function unusualModes(store: WorkspaceStore, snapshot: SnapshotId): Record<string, number> {
  const modes: Record<string, number> = {};
  for (const file of store.filesOf(snapshot)) {
    if (file.mode === '120000') continue;
    const stat = fs.lstatSync(path.join(store.cwd, file.path), { throwIfNoEntry: false });
    const bits = stat ? stat.mode & 0o7777 : undefined;
    if (bits !== undefined && bits !== defaultBits(file.mode)) modes[file.path] = bits;
  }
  return modes;
}

/** After a checkout of `record.replaced`: each file's permission bits as the restore found them. */
function restoreModes(store: WorkspaceStore, record: RestoreRecord): void {
  for (const file of store.filesOf(record.replaced)) {
    if (file.mode === '120000') continue;
    const target = path.join(store.cwd, file.path);
    const wanted = record.modes[file.path] ?? defaultBits(file.mode);
    const stat = fs.lstatSync(target, { throwIfNoEntry: false });
    if (stat && (stat.mode & 0o7777) !== wanted) fs.chmodSync(target, wanted);
  }
}

function defaultBits(gitMode: string): number {
  return gitMode === '100755' ? 0o755 : 0o644;
}

/**
 * A time-travel branch's store borrows its parent's objects (git alternates, flattened so a long
 * chain of branches never hits git's nesting limit), so the parent's snapshots restore and diff in it.
 */
function inheritWorkspaceStore(parentRunDirectory: string, branchRunDirectory: string): void {
  const parentObjects = path.join(runFile(parentRunDirectory, 'workspaceStore'), 'objects');
  if (!fs.existsSync(parentObjects)) return;
  const parentAlternates = readLines(path.join(parentObjects, 'info', 'alternates'));
  const info = path.join(runFile(branchRunDirectory, 'workspaceStore'), 'objects', 'info');
  fs.mkdirSync(info, { recursive: true });
  fs.writeFileSync(path.join(info, 'alternates'), [...parentAlternates, parentObjects].map((line) => `${line}\n`).join(''));
  // What the parent's snapshots left out past the budget stays out of the branch's.
  const overBudget = path.join(runFile(parentRunDirectory, 'workspaceStore'), 'info', OVER_BUDGET_FILE);
  if (!fs.existsSync(overBudget)) return;
  const branchInfo = path.join(runFile(branchRunDirectory, 'workspaceStore'), 'info');
  fs.mkdirSync(branchInfo, { recursive: true });
  fs.copyFileSync(overBudget, path.join(branchInfo, OVER_BUDGET_FILE));
}

function readLines(file: string): string[] {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}
