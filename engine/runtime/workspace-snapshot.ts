import fs from 'node:fs';
import path from 'node:path';
import { StatFingerprint } from './workspace-fingerprint';
import { ChangeWatch } from './workspace-watch';
import { runFile } from './run-layout';
import { writeJsonAtomic } from './atomic-write';
import type { GitTarget } from './hardened-git';
import { checkedObjectId, runGit } from './hardened-git';
import type { LeftOut, ListedPath, SnapshotBudget } from './workspace-budget';
import { BudgetAccount, DEFAULT_SNAPSHOT_BUDGET, excludeRule } from './workspace-budget';

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
  /** Paths the visit left that went past the snapshot budget: in no snapshot from `after` on (a directory ends in '/'). */
  readonly over_budget?: readonly string[];
}

/**
 * Always left out, besides the workspace's own .gitignore files. Secrets files (`.env`, `.env.*`
 * at any depth) are never copied into a run directory, which is shared and inspected more freely
 * than the workspace; being left out, a restore never touches them either.
 */
const ALWAYS_EXCLUDED = ['node_modules/', '.git/', '.attractor-runs/', '.env', '.env.*'];
const NEVER_SNAPSHOTTED_NAMES = new Set(['node_modules', '.git', '.attractor-runs']);

/** In a store's `info/`: the paths its snapshots left out past the budget (a JSON array). */
export const OVER_BUDGET_FILE = 'over-budget.json';

type FileChangeKind = 'added' | 'changed' | 'deleted';

export interface FileChange {
  readonly kind: FileChangeKind;
  readonly path: string;
}

export type OpenedStore = { readonly kind: 'open'; readonly store: WorkspaceStore } | { readonly kind: 'unavailable'; readonly reason: string };

/**
 * The store of a run directory, bound to the workspace `cwd`; created on first use. A new store is
 * refused for a workspace over the budget; an existing one counts what its last snapshot holds.
 */
export function openWorkspaceStore(runDirectory: string, cwd: string, budget: SnapshotBudget = DEFAULT_SNAPSHOT_BUDGET): OpenedStore {
  const store = new WorkspaceStore(runFile(runDirectory, 'workspaceStore'), cwd, budget);
  const fresh = !fs.existsSync(path.join(store.storeDir, 'HEAD'));
  // A store that could not be set up leaves nothing behind that looks like one.
  const unavailable = (reason: string): OpenedStore => {
    if (fresh) fs.rmSync(store.storeDir, { recursive: true, force: true });
    return { kind: 'unavailable', reason };
  };
  try {
    if (!fs.statSync(store.cwd).isDirectory()) return unavailable(`${store.cwd} is not a directory`);
    store.initialize(runDirectory);
    const over = store.countBudget(fresh);
    if (over && fresh) return unavailable(over);
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

  /** The size in bytes of `file` in `snapshot`, or undefined when the snapshot has no such file. */
  fileSize(snapshot: SnapshotId, file: string): number | undefined {
    const entry = this.git(['ls-tree', '-z', '-l', '--end-of-options', checkedObjectId(snapshot, 'snapshot'), '--', file]).split('\0')[0] ?? '';
    const size = /^\d+ blob [0-9a-f]{40} +(\d+)\t/.exec(entry)?.[1];
    return size === undefined ? undefined : Number(size);
  }

  /** One file's unified diff between two snapshots (git's format: a binary file is named, not printed; the path is literal). */
  fileDiff(from: SnapshotId, to: SnapshotId, file: string): string {
    const ids = [checkedObjectId(from, 'snapshot'), checkedObjectId(to, 'snapshot')];
    return this.git(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--end-of-options', ...ids, '--', file]);
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
  private readonly account: BudgetAccount;
  /** The run directory (set by initialize): never snapshotted. */
  private runDirectory: string | undefined;
  /** The paths left out past the budget so far. */
  private overBudget: string[] = [];
  /** What the last take() stopped snapshotting, past the budget. */
  private leftOutByLastTake: readonly LeftOut[] = [];

  constructor(storeDir: string, cwd: string, budget: SnapshotBudget = DEFAULT_SNAPSHOT_BUDGET) {
    super(storeDir);
    this.cwd = path.resolve(cwd);
    this.account = new BudgetAccount(budget, this.cwd);
  }

  get budget(): SnapshotBudget {
    return this.account.budget;
  }

  /** What the last snapshot stopped holding because it went past the budget (nothing when it held everything). */
  get leftOut(): readonly LeftOut[] {
    return this.leftOutByLastTake;
  }

  /** Where the paths left out past the budget are kept, so that no later snapshot (nor a branch's) reads them. */
  private get overBudgetFile(): string {
    return path.join(this.storeDir, 'info', OVER_BUDGET_FILE);
  }

  /** Every path a snapshot of this store left out past the budget (a directory ends in '/'). */
  overBudgetPaths(): string[] {
    try {
      const paths: unknown = JSON.parse(fs.readFileSync(this.overBudgetFile, 'utf8'));
      return Array.isArray(paths) ? paths.filter((p): p is string => typeof p === 'string') : [];
    } catch {
      return [];
    }
  }

  /** Where the ignore rules of the store live (besides the workspace's .gitignore files). */
  private get excludesFile(): string {
    return path.join(this.storeDir, 'info', 'exclude');
  }

  /**
   * Removes the index lock that a git killed with its engine left (`git add` in flight): every later
   * snapshot would fail on it. Only for the engine that holds the run lock, whose predecessor is dead.
   */
  clearStaleIndexLock(): void {
    fs.rmSync(path.join(this.storeDir, 'index.lock'), { force: true });
  }

  /** Idempotent: the object store and the excludes (the run directory itself when it lies inside the workspace). */
  initialize(runDirectory: string): void {
    // The layout of a bare repository, so older readers still take it for one; its config is never read.
    for (const sub of ['objects', 'refs', 'info']) fs.mkdirSync(path.join(this.storeDir, sub), { recursive: true });
    const head = path.join(this.storeDir, 'HEAD');
    if (!fs.existsSync(head)) fs.writeFileSync(head, 'ref: refs/heads/main\n');
    const overBudget = this.overBudgetPaths();
    const excludes = [...ALWAYS_EXCLUDED, ...runDirectoryExcludes(this.cwd, runDirectory), ...overBudget.flatMap((file) => excludeRule(file) ?? [])];
    fs.writeFileSync(this.excludesFile, excludes.map((line) => `${line}\n`).join(''));
    this.runDirectory = runDirectory;
    this.overBudget = overBudget;
  }

  /**
   * Counts against the budget what the snapshots hold: the whole workspace for a new store, what the
   * last snapshot held (git's index) for one in use. Why that is over the budget, or undefined.
   */
  countBudget(whole: boolean): string | undefined {
    return this.account.countAll(this.listed(whole ? ['--cached', '--others', '--exclude-standard'] : ['--cached']));
  }

  /** git's listing with what each path is to the last snapshot (`-t`: H held, C changed, ? new). */
  private listed(args: readonly string[]): ListedPath[] {
    const byPath = new Map<string, { held: boolean; changed: boolean }>();
    for (const entry of this.git(['ls-files', '-z', '-t', ...args]).split('\0')) {
      if (entry.length < 3) continue;
      const tag = entry[0];
      const file = entry.slice(2);
      const seen = byPath.get(file) ?? { held: false, changed: false };
      byPath.set(file, { held: seen.held || tag !== '?', changed: seen.changed || tag === 'C' || tag === '?' });
    }
    return [...byPath].map(([file, what]) => ({ path: file, ...what }));
  }

  /** True for a workspace-relative path no snapshot holds whatever the ignore rules say (the bound of a snapshot's growth passes it by). */
  private neverSnapshotted(relative: string, directory: boolean): boolean {
    const segments = relative.split('/');
    const name = segments.at(-1) ?? '';
    if (segments.slice(0, -1).some((segment) => NEVER_SNAPSHOTTED_NAMES.has(segment)) || (directory && NEVER_SNAPSHOTTED_NAMES.has(name)) || /^\.env(\..*)?$/.test(name)) return true;
    if (this.overBudget.some((out) => relative === out || (out.endsWith('/') && `${relative}/`.startsWith(out)))) return true;
    const run = this.runDirectory ? path.relative(this.cwd, path.resolve(this.runDirectory)).split(path.sep).join('/') : '..';
    if (run === '' || run.startsWith('..')) return false;
    const root = run.replace(/(\.(branch|restart)-\d+)+$/, '');
    return relative.startsWith(root) && /^(\.(branch|restart)-\d+)*(\/|$)/.test(relative.slice(root.length));
  }

  /**
   * take() at a node boundary, where the event loop may turn first: when the change watch heard
   * nothing since the last snapshot was confirmed, that snapshot is returned without a stat pass.
   */
  async takeAtBoundary(): Promise<SnapshotId> {
    this.leftOutByLastTake = [];
    this.watch ??= new ChangeWatch();
    const quiet = await this.watch.quiet();
    const latest = this.latest;
    if (quiet && latest?.vouched && this.watch.follows(latest.fingerprint) && latest.fingerprint.rootInPlace()) return latest.id;
    return this.take();
  }

  /** Records the workspace as it is now; unchanged files are neither read nor stored again. */
  take(): SnapshotId {
    this.leftOutByLastTake = [];
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
    // Within the budget by the bound (no child process) unless it may be past it: then git's listing counts.
    const growth = latest?.fingerprint.growthBound((relative, directory) => this.neverSnapshotted(relative, directory), this.account.room);
    if (!this.account.admitGrowth(growth)) this.admitChanges(disguised);
    this.git(['add', '--all']);
    const id = this.git(['write-tree']).trim();
    // Untracked entries too (the workspace's own .gitignore'd ones), so the directories they sit
    // in are watched; only what is never snapshotted (the run directory, node_modules) is left out.
    const listing = this.git(['ls-files', '-z', '--cached', '--others', '--directory', `--exclude-from=${this.excludesFile}`]).split('\0').filter(Boolean);
    this.latest = { id, fingerprint: StatFingerprint.capture(this.cwd, listing, startedMs), vouched: false };
    return id;
  }

  /**
   * Counts what `git add` is about to read against the budget, before it reads a byte: what would
   * take the snapshots past it is left out of this snapshot and every later one (and a branch's).
   */
  private admitChanges(disguised: readonly string[]): void {
    // Taken out of the index only to be read again: the last snapshot holds them, they are no new growth to leave out.
    const reread = new Set(disguised);
    const listing = this.listed(['--cached', '--modified', '--others', '--exclude-standard']).map((entry) => (reread.has(entry.path) ? { ...entry, held: true, changed: false } : entry));
    const leftOut = this.account.admit(listing);
    this.leftOutByLastTake = leftOut;
    if (leftOut.length === 0) return;
    // A file the last snapshot held that grew past the budget: out of git's index, so add passes it by.
    const files = leftOut.filter((unit) => !unit.path.endsWith('/'));
    if (files.length > 0) this.git(['update-index', '--force-remove', '-z', '--stdin'], files.map((unit) => `${unit.path}\0`).join(''));
    this.overBudget = [...this.overBudget, ...leftOut.map((unit) => unit.path)];
    writeJsonAtomic(this.overBudgetFile, this.overBudget);
    fs.appendFileSync(this.excludesFile, leftOut.map((unit) => `${excludeRule(unit.path) ?? ''}\n`).join(''));
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
