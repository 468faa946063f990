// The runs under a few roots, kept as summaries and read again only where something changed: a
// view lists them after every checkpoint any run writes, and hundreds of unchanged run directories
// must not be read again for it. Listings and stamps are read with asynchronous I/O, and the
// summarizing is done in slices that give the event loop back.
import fs from 'node:fs';
import path from 'node:path';
import { RunReader } from './run-reader';
import type { RunSummary } from './run-summary';
import { summarizeRun, withLiveness } from './run-summary';
import { runFile } from '../../engine/runtime/run-layout';

/** What a run directory looked like when it was summarized: its checkpoint's, manifest's, trace's and branch marker's identity. */
type Stamp = string;

interface Known {
  readonly summary: RunSummary;
  readonly stamp: Stamp;
}

/** Directories summarized in one go before the event loop gets a turn. */
const SLICE = 16;

export class RunCatalog {
  private readonly known = new Map<string, Known>();
  /** Directories a watcher saw change: read again at the next listing. */
  private readonly changed = new Set<string>();
  /** Set by `recheckAll`: the next listing compares every known directory's stamp. */
  private recheck = false;

  /** `onRead` (a bench's, a test's): called with each directory that is summarized. */
  constructor(private readonly onRead: (directory: string) => void = () => undefined) {}

  /** A file of a run changed (a watcher's event): the run it belongs to, directly under one of `roots`, is read again; returns that run's directory. */
  fileChanged(file: string, roots: readonly string[]): string | undefined {
    const directory = runDirectoryOf(file, roots);
    if (directory) this.changed.add(directory);
    return directory;
  }

  /** Anything may have changed (a run ended somewhere unwatched, a manual refresh): every directory's stamp is checked. */
  recheckAll(): void {
    this.recheck = true;
  }

  /** The runs directly under each root, newest first; a directory is summarized only when new, changed or rechecked with another stamp. */
  async list(roots: readonly string[]): Promise<RunSummary[]> {
    const recheck = this.recheck;
    this.recheck = false;
    const changed = new Set(this.changed);
    this.changed.clear();
    const directories = (await Promise.all(roots.map(childDirectories))).flat();
    const present = new Set(directories);
    for (const directory of this.known.keys()) if (!present.has(directory)) this.known.delete(directory);
    const summaries: RunSummary[] = [];
    let work = 0;
    for (const directory of directories) {
      if (work >= SLICE) {
        work = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
      const known = this.known.get(directory);
      const stale = !known || changed.has(directory) || (recheck && (await stampOf(directory)) !== known.stamp);
      if (!stale) {
        summaries.push(withLiveness(known.summary));
        continue;
      }
      work++;
      const read = this.read(directory);
      if (read) summaries.push(read);
    }
    return summaries.sort(newestFirst);
  }

  /**
   * The runs in `directories` as they are now, each read again only when its stamp moved since it
   * was last read (undefined: not a run, or gone). What a view needs when a watcher named these
   * runs and no others: the rest of the listing is not looked at.
   */
  async reread(directories: Iterable<string>): Promise<Map<string, RunSummary | undefined>> {
    const summaries = new Map<string, RunSummary | undefined>();
    for (const directory of directories) {
      this.changed.delete(directory);
      const known = this.known.get(directory);
      summaries.set(directory, known && (await stampOf(directory)) === known.stamp ? withLiveness(known.summary) : this.read(directory));
    }
    return summaries;
  }

  /** Summarizes a run: its files are read synchronously (a few small ones), so its stamp is taken so too. */
  private read(directory: string): RunSummary | undefined {
    const stamp = stampNow(directory);
    if (!new RunReader(directory).isRun()) {
      this.known.delete(directory);
      return undefined;
    }
    this.onRead(directory);
    const summary = summarizeRun(directory);
    this.known.set(directory, { summary, stamp });
    return summary;
  }
}

/** The run directory a file belongs to: the directory directly under the root it is in, if any. */
function runDirectoryOf(file: string, roots: readonly string[]): string | undefined {
  for (const root of roots) {
    const relative = path.relative(root, file);
    if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
    const [first] = relative.split(path.sep);
    if (first) return path.join(root, first);
  }
  return undefined;
}

/** Every run directory directly under `root` (one holding a checkpoint or a manifest), newest first, read now. */
export function listRuns(root: string): RunSummary[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  return subdirectories(root, entries)
    .filter((directory) => new RunReader(directory).isRun())
    .map(summarizeRun)
    .sort(newestFirst);
}

async function childDirectories(root: string): Promise<string[]> {
  try {
    return subdirectories(root, await fs.promises.readdir(root, { withFileTypes: true }));
  } catch {
    return [];
  }
}

function subdirectories(root: string, entries: readonly fs.Dirent[]): string[] {
  return entries.filter((entry) => entry.isDirectory()).map((entry) => path.join(root, entry.name));
}

const STAMPED = ['checkpoint', 'manifest', 'trace', 'branch'] as const;

/** A directory's stamp, its files stat'ed off the event loop: what a recheck compares before it reads. */
async function stampOf(directory: string): Promise<Stamp> {
  const stats = await Promise.all(STAMPED.map((file) => fs.promises.stat(runFile(directory, file)).catch(() => undefined)));
  return stats.map(fileStamp).join('|');
}

function stampNow(directory: string): Stamp {
  return STAMPED.map((file) => fileStamp(fs.statSync(runFile(directory, file), { throwIfNoEntry: false }))).join('|');
}

function fileStamp(stat: fs.Stats | undefined): string {
  return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : '-';
}

function newestFirst(a: RunSummary, b: RunSummary): number {
  return (b.startedAt ?? '').localeCompare(a.startedAt ?? '') || b.name.localeCompare(a.name);
}
