import fs from 'node:fs';
import path from 'node:path';

/**
 * How long before a snapshot began a change must have happened for its stat to be trusted: file
 * system timestamps come from a coarse clock that lags the wall clock by up to a scheduler tick.
 */
const RACY_MARGIN_MS = 50;

/**
 * The lstat of every file and directory a snapshot saw, so "nothing changed since" is answered
 * without a child process (git's own index does the same, one process later). Directories are
 * watched for entries appearing; inside a directory git listed as wholly untracked (an ignored
 * dist/) only the directories are watched, so a file that is not ignored appearing anywhere in it
 * is still seen. A stat changed at or after the snapshot began ("racy", as git
 * calls it) could hide a change git did not see, so such a fingerprint never vouches for anything.
 */
export class StatFingerprint {
  private constructor(
    /** Absolute path of each watched path. */
    private readonly paths: readonly string[],
    /** The same, relative to the workspace ('/'-separated, as git names them). */
    private readonly relativePaths: readonly string[],
    /** Its stat, FIELDS numbers per path: compared as numbers, so the check allocates nothing per path. */
    private readonly stats: Float64Array,
    /** Paths (indexes) changed at or after the snapshot began, or gone: no vouching, and git may hold another version of such a file. */
    private readonly racy: ReadonlySet<number>,
    /** The directories among the paths: what a change watch listens on (workspace-watch.ts). */
    readonly directories: readonly string[],
    /**
     * A file has hard links besides its path here: a write through another of its names raises no
     * event on the directories watched, so only the stat pass may vouch for this fingerprint.
     */
    readonly hardLinked: boolean,
  ) {}

  /** The paths as a set, made the first time growthBound asks. */
  private known: Set<string> | undefined;

  /** Vouches for nothing: the next snapshot asks git. */
  private static readonly untrusted = new StatFingerprint([], [], new Float64Array(0), new Set(), [], false);

  /** `listing`: git ls-files --cached --others --directory of the snapshot, less what is never snapshotted (dirs end with '/'). */
  static capture(root: string, listing: readonly string[], snapshotStartedMs: number): StatFingerprint {
    const watched = new Set<string>(['']);
    for (const entry of listing) {
      const untrackedDirectory = entry.endsWith('/');
      const trimmed = untrackedDirectory ? entry.slice(0, -1) : entry;
      watched.add(trimmed);
      for (let dir = path.posix.dirname(trimmed); dir !== '.' && !watched.has(dir); dir = path.posix.dirname(dir)) watched.add(dir);
      if (untrackedDirectory) for (const sub of subdirectories(root, trimmed)) watched.add(sub);
    }
    // Paths under the real directory: the lstat of a workspace reached through a symbolic link
    // would otherwise be the link's, blind to entries added at its top level.
    const base = realDirectory(root);
    if (base === undefined) return StatFingerprint.untrusted;
    const paths: string[] = [];
    const stats = new Float64Array(watched.size * FIELDS);
    const directories: string[] = [];
    const racy = new Set<number>();
    let hardLinked = false;
    for (const relative of watched) {
      const absolute = path.join(base, relative);
      const stat = fs.lstatSync(absolute, LSTAT_OPTIONS);
      // Gone since git listed it, or changed at or after the snapshot began: never matches.
      if (!stat || stat.ctimeMs >= snapshotStartedMs - RACY_MARGIN_MS) racy.add(paths.length);
      if (stat?.isDirectory()) directories.push(absolute);
      else if (stat && stat.nlink > 1) hardLinked = true;
      record(stats, paths.length, stat);
      paths.push(absolute);
    }
    return new StatFingerprint(paths, [...watched], stats, racy, directories, hardLinked);
  }

  /**
   * At most how many files and bytes a snapshot taken now may add to the one this fingerprint
   * describes, without a child process: what each file it saw grew by, and every entry it did not
   * see in a directory whose stat changed, walked whole but for what `neverSnapshotted` names
   * (workspace-relative). Ignore rules are not read, so it errs high; it stops counting once past
   * `limit`. Undefined when it cannot tell: no paths, or a `.gitignore` changed (its rules may now
   * take in files this fingerprint never saw).
   */
  growthBound(neverSnapshotted: (relative: string, directory: boolean) => boolean, limit: { readonly files: number; readonly bytes: number }): { files: number; bytes: number } | undefined {
    if (this.paths.length === 0) return undefined;
    const known = (this.known ??= new Set(this.paths));
    const grown = { files: 0, bytes: 0, rulesChanged: false };
    const past = () => grown.rulesChanged || grown.files > limit.files || grown.bytes > limit.bytes;
    const count = (relative: string, size: number, newFile: boolean): void => {
      grown.files += newFile ? 1 : 0;
      grown.bytes += size;
      grown.rulesChanged ||= path.posix.basename(relative) === '.gitignore';
    };
    // The entries of a directory this fingerprint did not see, each walked whole.
    const unseenIn = (directory: string, relative: string): void => {
      for (const name of readEntries(directory)) {
        const absolute = path.join(directory, name);
        if (!known.has(absolute)) walk(absolute, relative === '' ? name : `${relative}/${name}`);
      }
    };
    const walk = (absolute: string, relative: string): void => {
      const stat = fs.lstatSync(absolute, LSTAT_OPTIONS);
      if (!stat || past() || neverSnapshotted(relative, stat.isDirectory())) return;
      if (stat.isDirectory()) unseenIn(absolute, relative);
      else count(relative, stat.size, true);
    };
    for (let i = 0; i < this.paths.length && !past(); i++) {
      const absolute = this.paths[i] ?? '';
      const stat = fs.lstatSync(absolute, LSTAT_OPTIONS);
      if (!stat || matches(this.stats, i, stat)) continue;
      const relative = this.relativePaths[i] ?? '';
      const at = i * FIELDS;
      const size = this.stats[at + 2] ?? Number.NaN;
      const wasDirectory = ((this.stats[at] ?? 0) & fs.constants.S_IFMT) === fs.constants.S_IFDIR;
      if (Number.isNaN(size) || stat.isDirectory() !== wasDirectory) walk(absolute, relative);
      else if (stat.isDirectory()) unseenIn(absolute, relative);
      else count(relative, Math.max(0, stat.size - size), false);
    }
    return grown.rulesChanged ? undefined : { files: grown.files, bytes: grown.bytes };
  }

  /** True when the workspace's path still names the directory this fingerprint saw (one lstat). */
  rootInPlace(): boolean {
    return this.samePathStat(0);
  }

  /** True only when every watched path still has the stat it had. */
  unchanged(): boolean {
    // A racy path could hide a change git did not see.
    if (this.paths.length === 0 || this.racy.size > 0) return false;
    for (let i = 0; i < this.paths.length; i++) if (!this.samePathStat(i)) return false;
    return true;
  }

  /**
   * The files git may take for unchanged although they changed. git's own stat check compares whole
   * seconds (nanoseconds only in builds with USE_NSEC), so an edit that keeps the size and the
   * modification second (a tool that puts the modification time back) passes it; and a file changed
   * while git was adding it may hold other content than git read. These must be read again.
   */
  disguisedEdits(): string[] {
    const found: string[] = [];
    for (let i = 0; i < this.paths.length; i++) {
      const stat = fs.lstatSync(this.paths[i] ?? '', LSTAT_OPTIONS);
      if (!stat || stat.isDirectory()) continue;
      const at = i * FIELDS;
      const disguised = !matches(this.stats, i, stat) && this.stats[at + 2] === stat.size && Math.floor((this.stats[at + 3] ?? 0) / 1000) === Math.floor(stat.mtimeMs / 1000);
      if (disguised || this.racy.has(i)) found.push(this.relativePaths[i] ?? '');
    }
    return found;
  }

  private samePathStat(index: number): boolean {
    const stat = fs.lstatSync(this.paths[index] ?? '', LSTAT_OPTIONS);
    return stat !== undefined && matches(this.stats, index, stat);
  }
}

const LSTAT_OPTIONS = { throwIfNoEntry: false } as const;

function readEntries(directory: string): string[] {
  try {
    return fs.readdirSync(directory);
  } catch {
    return [];
  }
}

function realDirectory(root: string): string | undefined {
  try {
    return fs.realpathSync(root);
  } catch {
    return undefined;
  }
}

/** mode, inode, size and the two timestamps (milliseconds as doubles keep sub-microsecond precision for today's dates). */
const FIELDS = 5;

/** An absent path's fields stay NaN, which equals nothing. */
function record(stats: Float64Array, index: number, stat: fs.Stats | undefined): void {
  const at = index * FIELDS;
  if (!stat) {
    stats.fill(Number.NaN, at, at + FIELDS);
    return;
  }
  stats[at] = stat.mode;
  stats[at + 1] = stat.ino;
  stats[at + 2] = stat.size;
  stats[at + 3] = stat.mtimeMs;
  stats[at + 4] = stat.ctimeMs;
}

function matches(stats: Float64Array, index: number, stat: fs.Stats): boolean {
  const at = index * FIELDS;
  return stats[at + 3] === stat.mtimeMs && stats[at + 4] === stat.ctimeMs && stats[at + 2] === stat.size && stats[at + 1] === stat.ino && stats[at] === stat.mode;
}

/** Every directory below `relative` (posix, relative to `root`); symbolic links are not followed. */
function subdirectories(root: string, relative: string): string[] {
  const found: string[] = [];
  const pending = [relative];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const sub = `${dir}/${entry.name}`;
      found.push(sub);
      pending.push(sub);
    }
  }
  return found;
}
