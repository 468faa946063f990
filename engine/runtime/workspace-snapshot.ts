import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { StatFingerprint } from './workspace-fingerprint';
import { ChangeWatch } from './workspace-watch';
import { runFile } from './run-layout';

/**
 * Content-addressed snapshots of a run's working directory, one per node visit, in a private git
 * object store under the run directory (`workspace.git`): a snapshot is a git tree id, unchanged
 * files are shared blobs, and git's index doubles as the stat cache that makes an unchanged
 * workspace cheap to snapshot again. The user's own repository (if any) is never touched.
 */

/** A git tree id naming the whole workspace at one node boundary. */
export type SnapshotId = string;

/** The snapshots a node visit was recorded between (a trace line's `files`). */
export interface VisitFiles {
  readonly before: SnapshotId;
  readonly after: SnapshotId;
}

export interface SnapshotBudget {
  readonly maxFiles: number;
  readonly maxBytes: number;
}

const DEFAULT_SNAPSHOT_BUDGET: SnapshotBudget = { maxFiles: 20_000, maxBytes: 200 * 1024 * 1024 };

/** Always left out, besides the workspace's own .gitignore files. */
const ALWAYS_EXCLUDED = ['node_modules/', '.git/', '.attractor-runs/'];

type FileChangeKind = 'added' | 'changed' | 'deleted';

export interface FileChange {
  readonly kind: FileChangeKind;
  readonly path: string;
}

class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

export type OpenedStore = { readonly kind: 'open'; readonly store: WorkspaceStore } | { readonly kind: 'unavailable'; readonly reason: string };

/** The store of a run directory, bound to the workspace `cwd`; created (and checked against the budget) on first use. */
export function openWorkspaceStore(runDirectory: string, cwd: string, budget: SnapshotBudget = DEFAULT_SNAPSHOT_BUDGET): OpenedStore {
  const store = new WorkspaceStore(runFile(runDirectory, 'workspaceStore'), cwd);
  const fresh = !fs.existsSync(path.join(store.gitDir, 'HEAD'));
  // A store that could not be set up leaves nothing behind that looks like one.
  const unavailable = (reason: string): OpenedStore => {
    if (fresh) fs.rmSync(store.gitDir, { recursive: true, force: true });
    return { kind: 'unavailable', reason };
  };
  try {
    if (!fs.statSync(store.cwd).isDirectory()) return unavailable(`${store.cwd} is not a directory`);
    store.initialize(runDirectory);
    const over = fresh ? store.overBudget(budget) : undefined;
    if (over) return unavailable(over);
  } catch (error) {
    return unavailable((error as Error).message);
  }
  return { kind: 'open', store };
}

/** The store of a run directory that already has one (for reading: diffs), or undefined. */
export function existingWorkspaceStore(runDirectory: string, cwd: string): WorkspaceStore | undefined {
  const gitDir = runFile(runDirectory, 'workspaceStore');
  return fs.existsSync(path.join(gitDir, 'HEAD')) ? new WorkspaceStore(gitDir, cwd) : undefined;
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
}

export class WorkspaceStore {
  readonly gitDir: string;
  readonly cwd: string;
  /**
   * The last snapshot, what the workspace looked like to lstat then, and whether a change watch
   * heard everything since a stat pass confirmed it (so that silence is enough).
   */
  private latest: { readonly id: SnapshotId; readonly fingerprint: StatFingerprint; readonly vouched: boolean } | undefined;
  /** Listens for changes between node boundaries, once takeAtBoundary is used; close() ends it. */
  private watch: ChangeWatch | undefined;

  constructor(gitDir: string, cwd: string) {
    this.gitDir = path.resolve(gitDir);
    this.cwd = path.resolve(cwd);
  }

  /** Idempotent: the object store and the excludes (the run directory itself when it lies inside the workspace). */
  initialize(runDirectory: string): void {
    if (!fs.existsSync(path.join(this.gitDir, 'HEAD'))) {
      fs.mkdirSync(this.gitDir, { recursive: true });
      this.git(['init', '--quiet']);
    }
    const excludes = [...ALWAYS_EXCLUDED, ...runDirectoryExcludes(this.cwd, runDirectory)];
    const info = path.join(this.gitDir, 'info');
    fs.mkdirSync(info, { recursive: true });
    fs.writeFileSync(path.join(info, 'exclude'), excludes.map((line) => `${line}\n`).join(''));
  }

  /** Why the workspace is too large to snapshot, or undefined when it fits. */
  overBudget(budget: SnapshotBudget): string | undefined {
    const files = this.git(['ls-files', '-z', '--others', '--cached', '--exclude-standard']).split('\0').filter(Boolean);
    if (files.length > budget.maxFiles) return `the workspace ${this.cwd} has ${files.length} files, more than the snapshot budget of ${budget.maxFiles}`;
    let bytes = 0;
    for (const file of files) {
      bytes += fs.lstatSync(path.join(this.cwd, file), { throwIfNoEntry: false })?.size ?? 0;
      if (bytes > budget.maxBytes) return `the workspace ${this.cwd} holds more than the snapshot budget of ${Math.round(budget.maxBytes / 1024 / 1024)} MB`;
    }
    return undefined;
  }

  /**
   * take() at a node boundary, where the event loop may turn first: when the change watch heard
   * nothing since the last snapshot was confirmed, that snapshot is returned without a stat pass.
   */
  async takeAtBoundary(): Promise<SnapshotId> {
    this.watch ??= new ChangeWatch();
    const quiet = await this.watch.quiet();
    const latest = this.latest;
    if (quiet && latest?.vouched && this.watch.follows(latest.fingerprint) && latest.fingerprint.rootInPlace()) return latest.id;
    return this.take();
  }

  /** Records the workspace as it is now; unchanged files are neither read nor stored again. */
  take(): SnapshotId {
    const latest = this.latest;
    if (latest) {
      this.watch?.follow(latest.fingerprint);
      if (latest.fingerprint.unchanged()) {
        this.latest = { ...latest, vouched: this.watch?.follows(latest.fingerprint) ?? false };
        return latest.id;
      }
    }
    const disguised = latest?.fingerprint.disguisedEdits() ?? [];
    // Out of git's index, so that add reads them again.
    if (disguised.length > 0) this.git(['update-index', '--force-remove', '-z', '--stdin'], disguised.map((file) => `${file}\0`).join(''));
    const startedMs = Date.now();
    this.git(['add', '--all']);
    const id = this.git(['write-tree']).trim();
    // Untracked entries too (the workspace's own .gitignore'd ones), so the directories they sit
    // in are watched; only what is never snapshotted (the run directory, node_modules) is left out.
    const listing = this.git(['ls-files', '-z', '--cached', '--others', '--directory', `--exclude-from=${path.join(this.gitDir, 'info', 'exclude')}`]).split('\0').filter(Boolean);
    this.latest = { id, fingerprint: StatFingerprint.capture(this.cwd, listing, startedMs), vouched: false };
    return id;
  }

  /** Stops listening for changes (takeAtBoundary starts again). */
  close(): void {
    this.watch?.close();
    this.watch = undefined;
  }

  /**
   * Puts the workspace back to `snapshot`: files it holds are rewritten, files added since are
   * deleted. The state being left is snapshotted first, so nothing is lost; ignored files stay.
   */
  restore(snapshot: SnapshotId): SnapshotId {
    const left = this.take();
    this.latest = undefined;
    this.git(['read-tree', '-u', '--reset', snapshot]);
    return left;
  }

  changes(from: SnapshotId, to: SnapshotId): FileChange[] {
    const fields = this.git(['diff-tree', '-r', '-z', '--no-renames', '--name-status', from, to]).split('\0').filter(Boolean);
    const changes: FileChange[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      changes.push({ kind: changeKind(fields[i] ?? ''), path: fields[i + 1] ?? '' });
    }
    return changes;
  }

  /** The text of `file` (workspace-relative, '/'-separated) in `snapshot`, or undefined when the snapshot has no such file. */
  fileAt(snapshot: SnapshotId, file: string): string | undefined {
    const entry = this.git(['ls-tree', '-z', snapshot, '--', file]).split('\0')[0] ?? '';
    const blob = /^\d+ blob ([0-9a-f]+)\t/.exec(entry)?.[1];
    return blob ? this.git(['cat-file', 'blob', blob]) : undefined;
  }

  /** A unified diff (git's format; binary files are named, not printed). */
  unifiedDiff(from: SnapshotId, to: SnapshotId): string {
    return this.git(['diff', '--no-color', '--no-ext-diff', '--no-renames', from, to]);
  }

  private git(args: readonly string[], input?: string): string {
    const result = spawnSync('git', ['-c', 'core.autocrlf=false', '-c', 'core.quotePath=false', '-c', 'gc.auto=0', ...args], {
      cwd: this.cwd,
      ...(input === undefined ? {} : { input }),
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      env: {
        PATH: process.env.PATH ?? '',
        GIT_DIR: this.gitDir,
        GIT_WORK_TREE: this.cwd,
        GIT_INDEX_FILE: path.join(this.gitDir, 'index'),
        // The user's git configuration (hooks, filters, signing) has no say over a private store.
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        HOME: this.gitDir,
        LC_ALL: 'C',
      },
    });
    if (result.error) {
      const code = (result.error as NodeJS.ErrnoException).code;
      throw new SnapshotError(code === 'ENOENT' ? 'git is not installed (workspace snapshots need the `git` command on PATH)' : `git could not run: ${result.error.message}`);
    }
    if (result.status !== 0) throw new SnapshotError(`git ${args[0] ?? ''} failed: ${result.stderr.trim()}`);
    return result.stdout;
  }
}

function changeKind(letter: string): FileChangeKind {
  if (letter === 'A') return 'added';
  if (letter === 'D') return 'deleted';
  return 'changed';
}

/**
 * The run directory and its time-travel siblings (`<root>.branch-N`, `<root>.restart-N`, and a
 * branch's own, `<root>.branch-N.branch-M`), anchored at the workspace root: the original run's
 * name is what is left once every suffix is taken off.
 */
function runDirectoryExcludes(cwd: string, runDirectory: string): string[] {
  const relative = path.relative(path.resolve(cwd), path.resolve(runDirectory));
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return [];
  const anchored = `/${relative.split(path.sep).join('/')}`;
  const root = anchored.replace(/(\.(branch|restart)-\d+)+$/, '');
  return [`${root}/`, `${root}.branch-*/`, `${root}.restart-*/`];
}

function readLines(file: string): string[] {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

export type RestoreResult = { readonly restored: true } | { readonly restored: false; readonly reason: string };

/**
 * Time travel into a new branch run: the workspace goes back to `snapshot` (the parent's, seen
 * through the branch's store), after the state being left was saved in the branch's store.
 */
export function restoreWorkspaceForBranch(parentRunDirectory: string, branchRunDirectory: string, cwd: string, snapshot: SnapshotId | undefined): RestoreResult {
  if (!snapshot) return { restored: false, reason: 'the run took no workspace snapshot at that point (snapshots were off or unavailable)' };
  inheritWorkspaceStore(parentRunDirectory, branchRunDirectory);
  const opened = openWorkspaceStore(branchRunDirectory, cwd);
  if (opened.kind === 'unavailable') return { restored: false, reason: opened.reason };
  try {
    opened.store.restore(snapshot);
  } catch (error) {
    return { restored: false, reason: (error as Error).message };
  }
  return { restored: true };
}
