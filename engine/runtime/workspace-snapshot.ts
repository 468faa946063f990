import fs from 'node:fs';
import path from 'node:path';
import { StatFingerprint } from './workspace-fingerprint';
import { ChangeWatch } from './workspace-watch';
import { runFile } from './run-layout';
import type { GitTarget } from './hardened-git';
import { checkedObjectId, runGit } from './hardened-git';

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

/**
 * Always left out, besides the workspace's own .gitignore files. Secrets files (`.env`, `.env.*`
 * at any depth) are never copied into a run directory, which is shared and inspected more freely
 * than the workspace; being left out, a restore never touches them either.
 */
const ALWAYS_EXCLUDED = ['node_modules/', '.git/', '.attractor-runs/', '.env', '.env.*'];

type FileChangeKind = 'added' | 'changed' | 'deleted';

export interface FileChange {
  readonly kind: FileChangeKind;
  readonly path: string;
}

export type OpenedStore = { readonly kind: 'open'; readonly store: WorkspaceStore } | { readonly kind: 'unavailable'; readonly reason: string };

/** The store of a run directory, bound to the workspace `cwd`; created (and checked against the budget) on first use. */
export function openWorkspaceStore(runDirectory: string, cwd: string, budget: SnapshotBudget = DEFAULT_SNAPSHOT_BUDGET): OpenedStore {
  const store = new WorkspaceStore(runFile(runDirectory, 'workspaceStore'), cwd);
  const fresh = !fs.existsSync(path.join(store.storeDir, 'HEAD'));
  // A store that could not be set up leaves nothing behind that looks like one.
  const unavailable = (reason: string): OpenedStore => {
    if (fresh) fs.rmSync(store.storeDir, { recursive: true, force: true });
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

/** The snapshots a run directory's store holds, for reading (diffs, a file's text), or undefined when it has none. */
export function storedSnapshots(runDirectory: string): StoredSnapshots | undefined {
  const storeDir = runFile(runDirectory, 'workspaceStore');
  return fs.existsSync(path.join(storeDir, 'HEAD')) ? new StoredSnapshots(storeDir) : undefined;
}

/** Reading stored snapshots needs their objects only: no working tree, no index, nothing of the store's own but its objects. */
export class StoredSnapshots {
  readonly storeDir: string;

  constructor(storeDir: string) {
    this.storeDir = path.resolve(storeDir);
  }

  changes(from: SnapshotId, to: SnapshotId): FileChange[] {
    const ids = [checkedObjectId(from, 'snapshot'), checkedObjectId(to, 'snapshot')];
    const fields = this.git(['diff-tree', '-r', '-z', '--no-renames', '--name-status', '--end-of-options', ...ids]).split('\0').filter(Boolean);
    const changes: FileChange[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      changes.push({ kind: changeKind(fields[i] ?? ''), path: fields[i + 1] ?? '' });
    }
    return changes;
  }

  /** The text of `file` (workspace-relative, '/'-separated) in `snapshot`, or undefined when the snapshot has no such file. */
  fileAt(snapshot: SnapshotId, file: string): string | undefined {
    const entry = this.git(['ls-tree', '-z', '--end-of-options', checkedObjectId(snapshot, 'snapshot'), '--', file]).split('\0')[0] ?? '';
    const blob = /^\d+ blob ([0-9a-f]{40})\t/.exec(entry)?.[1];
    return blob ? this.git(['cat-file', 'blob', '--end-of-options', blob]) : undefined;
  }

  /** A unified diff (git's format; binary files are named, not printed). */
  unifiedDiff(from: SnapshotId, to: SnapshotId): string {
    const ids = [checkedObjectId(from, 'snapshot'), checkedObjectId(to, 'snapshot')];
    return this.git(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--end-of-options', ...ids]);
  }

  protected git(args: readonly string[], input?: string): string {
    return runGit(this.target(), args, input);
  }

  protected target(): GitTarget {
    return { objects: path.join(this.storeDir, 'objects') };
  }
}

export class WorkspaceStore extends StoredSnapshots {
  readonly cwd: string;
  /**
   * The last snapshot, what the workspace looked like to lstat then, and whether a change watch
   * heard everything since a stat pass confirmed it (so that silence is enough).
   */
  private latest: { readonly id: SnapshotId; readonly fingerprint: StatFingerprint; readonly vouched: boolean } | undefined;
  /** Listens for changes between node boundaries, once takeAtBoundary is used; close() ends it. */
  private watch: ChangeWatch | undefined;

  constructor(storeDir: string, cwd: string) {
    super(storeDir);
    this.cwd = path.resolve(cwd);
  }

  /** Where the ignore rules of the store live (besides the workspace's .gitignore files). */
  private get excludesFile(): string {
    return path.join(this.storeDir, 'info', 'exclude');
  }

  /** Idempotent: the object store and the excludes (the run directory itself when it lies inside the workspace). */
  initialize(runDirectory: string): void {
    // The layout of a bare repository, so older readers still take it for one; its config is never read.
    for (const sub of ['objects', 'refs', 'info']) fs.mkdirSync(path.join(this.storeDir, sub), { recursive: true });
    const head = path.join(this.storeDir, 'HEAD');
    if (!fs.existsSync(head)) fs.writeFileSync(head, 'ref: refs/heads/main\n');
    const excludes = [...ALWAYS_EXCLUDED, ...runDirectoryExcludes(this.cwd, runDirectory)];
    fs.writeFileSync(this.excludesFile, excludes.map((line) => `${line}\n`).join(''));
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
    const listing = this.git(['ls-files', '-z', '--cached', '--others', '--directory', `--exclude-from=${this.excludesFile}`]).split('\0').filter(Boolean);
    this.latest = { id, fingerprint: StatFingerprint.capture(this.cwd, listing, startedMs), vouched: false };
    return id;
  }

  /** Stops listening for changes (takeAtBoundary starts again). */
  close(): void {
    this.watch?.close();
    this.watch = undefined;
  }

  /**
   * Puts the workspace back to `snapshot`: files it holds are rewritten, files the last snapshot
   * holds and it does not are deleted; ignored files stay. Take a snapshot first (time travel keeps
   * it as the state it replaced), or what changed since the last one is lost.
   */
  checkout(snapshot: SnapshotId): void {
    this.latest = undefined;
    this.git(['read-tree', '-u', '--reset', '--end-of-options', checkedObjectId(snapshot, 'snapshot')]);
  }

  /** Every file of `snapshot` with its git mode (100644, 100755, 120000 for a symbolic link). */
  filesOf(snapshot: SnapshotId): { readonly path: string; readonly mode: string }[] {
    return this.git(['ls-tree', '-r', '-z', '--end-of-options', checkedObjectId(snapshot, 'snapshot')])
      .split('\0')
      .filter(Boolean)
      .map((entry) => {
        const tab = entry.indexOf('\t');
        return { path: entry.slice(tab + 1), mode: entry.slice(0, entry.indexOf(' ')) };
      });
  }

  protected override target(): GitTarget {
    return { objects: path.join(this.storeDir, 'objects'), index: path.join(this.storeDir, 'index'), workTree: this.cwd, excludesFile: this.excludesFile };
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
