import fs from 'node:fs';
import path from 'node:path';
import { formatBytes } from '../model/bytes';
import { intAttr } from '../model/attribute-readers';

/** The most the workspace snapshots of a run may hold (graph attributes `snapshot_max_files`, `snapshot_max_bytes`). */
export interface SnapshotBudget {
  readonly maxFiles: number;
  readonly maxBytes: number;
}

export const DEFAULT_SNAPSHOT_BUDGET: SnapshotBudget = { maxFiles: 20_000, maxBytes: 200 * 1024 * 1024 };

/** The budget a pipeline sets (its graph attributes), the default where it sets none. */
export function snapshotBudgetOf(graphAttributes: ReadonlyMap<string, { value: string }>): SnapshotBudget {
  return {
    maxFiles: Math.max(0, intAttr(graphAttributes, 'snapshot_max_files', DEFAULT_SNAPSHOT_BUDGET.maxFiles)),
    maxBytes: Math.max(0, intAttr(graphAttributes, 'snapshot_max_bytes', DEFAULT_SNAPSHOT_BUDGET.maxBytes)),
  };
}

export function describeBudget(budget: SnapshotBudget): string {
  return `${budget.maxFiles} files, ${formatBytes(budget.maxBytes)}`;
}

/** A path the snapshots stopped holding: a file, or a whole new directory (ending in '/'), and what it would have cost. */
export interface LeftOut {
  readonly path: string;
  readonly files: number;
  readonly bytes: number;
}

/** One path of git's listing: whether the last snapshot holds it, and whether this snapshot would add or change it. */
export interface ListedPath {
  readonly path: string;
  readonly held: boolean;
  readonly changed: boolean;
}

/** At most this much more than the last count: what a snapshot may add without a listing from git. */
export interface Growth {
  readonly files: number;
  readonly bytes: number;
}

/**
 * What the snapshots hold, counted against the budget for the whole run. The one accounting of the
 * budget: a count of git's listing (every path the next snapshot would hold, one lstat each, nothing
 * read) when a store opens and whenever a snapshot might go past the budget; in between, an upper
 * bound that grows by what each snapshot may have added (StatFingerprint.growthBound, no child
 * process). When a count finds the snapshot past the budget, what was added or changed is left out,
 * largest first (a new directory as a whole), until the rest fits.
 */
export class BudgetAccount {
  /** At least as many files and bytes as the last snapshot holds. */
  private bound: Growth = { files: 0, bytes: 0 };

  constructor(
    readonly budget: SnapshotBudget,
    private readonly cwd: string,
  ) {}

  /** The room left under the budget, by the bound. */
  get room(): Growth {
    return { files: this.budget.maxFiles - this.bound.files, bytes: this.budget.maxBytes - this.bound.bytes };
  }

  /** Counts `listing` as what the snapshots hold; why that is over the budget, or undefined. */
  countAll(listing: readonly ListedPath[]): string | undefined {
    const { files, bytes } = this.measure(listing);
    this.bound = { files: files.size, bytes };
    if (files.size > this.budget.maxFiles) return `the workspace ${this.cwd} has ${files.size} files, more than the snapshot budget of ${this.budget.maxFiles}`;
    if (bytes > this.budget.maxBytes) return `the workspace ${this.cwd} holds more than the snapshot budget of ${formatBytes(this.budget.maxBytes)}`;
    return undefined;
  }

  /** True when a snapshot adding at most `growth` stays within the budget; it is then counted so. */
  admitGrowth(growth: Growth | undefined): boolean {
    const room = this.room;
    if (!growth || growth.files > room.files || growth.bytes > room.bytes) return false;
    this.bound = { files: this.bound.files + growth.files, bytes: this.bound.bytes + growth.bytes };
    return true;
  }

  /** Counts `listing` (what the next snapshot would hold); returns what must be left out for the rest to fit. */
  admit(listing: readonly ListedPath[]): LeftOut[] {
    const { files, bytes } = this.measure(listing);
    let total = { files: files.size, bytes };
    const leftOut: LeftOut[] = [];
    const over = () => total.files > this.budget.maxFiles || total.bytes > this.budget.maxBytes;
    if (over()) {
      for (const unit of units(listing, files).sort((a, b) => b.bytes - a.bytes || b.files - a.files || (a.path < b.path ? -1 : 1))) {
        if (!over()) break;
        total = { files: total.files - unit.files, bytes: total.bytes - unit.bytes };
        leftOut.push(unit);
      }
    }
    this.bound = total;
    return leftOut;
  }

  /** The size of every listed path that is there now. */
  private measure(listing: readonly ListedPath[]): { files: Map<string, number>; bytes: number } {
    const files = new Map<string, number>();
    let bytes = 0;
    for (const { path: file } of listing) {
      const size = fs.lstatSync(path.join(this.cwd, file), { throwIfNoEntry: false })?.size;
      if (size === undefined || files.has(file)) continue;
      files.set(file, size);
      bytes += size;
    }
    return { files, bytes };
  }
}

/**
 * What may be left out: each file the snapshot would add or change, but new files under a
 * directory that holds no file of the last snapshot go as that directory's topmost such one (`out/`
 * for everything a node wrote under a new `out/`).
 */
function units(listing: readonly ListedPath[], sizes: ReadonlyMap<string, number>): LeftOut[] {
  const held = new Set<string>();
  for (const entry of listing) {
    if (entry.held) for (let dir = path.posix.dirname(entry.path); dir !== '.' && !held.has(dir); dir = path.posix.dirname(dir)) held.add(dir);
  }
  const found = new Map<string, { path: string; files: number; bytes: number }>();
  for (const entry of listing) {
    const size = sizes.get(entry.path);
    if (!entry.changed || size === undefined) continue;
    const key = entry.held ? entry.path : newTop(entry.path, held);
    if (excludeRule(key) === undefined) continue;
    let unit = found.get(key);
    if (!unit) found.set(key, (unit = { path: key, files: 0, bytes: 0 }));
    unit.files += 1;
    unit.bytes += size;
  }
  return [...found.values()];
}

/** `file` itself, or (ending in '/') its topmost directory that holds no file the snapshots hold. */
function newTop(file: string, held: ReadonlySet<string>): string {
  let top: string | undefined;
  for (let dir = path.posix.dirname(file); dir !== '.' && !held.has(dir); dir = path.posix.dirname(dir)) top = dir;
  return top === undefined ? file : `${top}/`;
}

/**
 * An ignore rule (gitignore syntax) matching exactly `leftOut` at the workspace root, or undefined
 * for a name no rule can hold (a line break): such a path is never left out.
 */
export function excludeRule(leftOut: string): string | undefined {
  if (/[\n\r]/.test(leftOut)) return undefined;
  const escaped = leftOut.replace(/[\\*?[\]]/g, (c) => `\\${c}`).replace(/ +$/, (spaces) => spaces.replace(/ /g, '\\ '));
  return `/${escaped}`;
}
