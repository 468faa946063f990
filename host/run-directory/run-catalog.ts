// The runs under a few roots, kept as summaries and read again only where something changed: a
// view lists them after every checkpoint any run writes, and hundreds of unchanged run directories
// must not be read again for it. The reading is done in slices that give the event loop back.
import fs from 'node:fs';
import path from 'node:path';
import { RunReader } from './run-reader';
import type { RunSummary } from './run-summary';
import { summarizeRun, withLiveness } from './run-summary';
import { runFile } from '../../engine/runtime/run-layout';

/** What a run directory looked like when it was summarized: its checkpoint's and manifest's identity. */
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

  /** `onRead` (a bench's): called with each directory that is summarized. */
  constructor(private readonly onRead: (directory: string) => void = () => undefined) {}

  /** A file of a run changed (a watcher's event): the run it belongs to, directly under one of `roots`, is read again. */
  fileChanged(file: string, roots: readonly string[]): void {
    for (const root of roots) {
      const relative = path.relative(root, file);
      if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
      const [first] = relative.split(path.sep);
      if (first) this.changed.add(path.join(root, first));
    }
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
    const directories = roots.flatMap(childDirectories);
    const present = new Set(directories);
    for (const directory of this.known.keys()) if (!present.has(directory)) this.known.delete(directory);
    const summaries: RunSummary[] = [];
    let work = 0;
    for (const directory of directories) {
      // A read costs about what a stamp check of eight directories does.
      if (work >= SLICE) {
        work = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
      const known = this.known.get(directory);
      if (recheck) work += 1 / 8;
      const stale = !known || changed.has(directory) || (recheck && stampOf(directory) !== known.stamp);
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

  private read(directory: string): RunSummary | undefined {
    const stamp = stampOf(directory);
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

/** Every run directory directly under `root` (one holding a checkpoint or a manifest), newest first, read now. */
export function listRuns(root: string): RunSummary[] {
  return childDirectories(root)
    .filter((directory) => new RunReader(directory).isRun())
    .map(summarizeRun)
    .sort(newestFirst);
}

function childDirectories(root: string): string[] {
  try {
    return fs
      .readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => path.join(root, entry.name));
  } catch {
    return [];
  }
}

function stampOf(directory: string): Stamp {
  return (['checkpoint', 'manifest', 'trace', 'branch'] as const).map((file) => fileStamp(runFile(directory, file))).join('|');
}

function fileStamp(file: string): string {
  try {
    const stat = fs.statSync(file);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return '-';
  }
}

function newestFirst(a: RunSummary, b: RunSummary): number {
  return (b.startedAt ?? '').localeCompare(a.startedAt ?? '') || b.name.localeCompare(a.name);
}
