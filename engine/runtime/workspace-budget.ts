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

/** Sizes of what one change proposes, by path: undefined for a file gone. */
type Proposal = Map<string, number | undefined>;

/**
 * What the snapshots hold, counted against the budget for the whole run: the size of every file
 * the last snapshot holds. The one accounting of the budget: counted whole when a store opens,
 * then by what each snapshot adds, changes or deletes, before git reads a byte of it. What would
 * take the snapshots past the budget is left out, largest first (a new directory as a whole), and
 * the rest is counted.
 */
export class BudgetAccount {
  private readonly sizes = new Map<string, number>();
  private bytes = 0;

  constructor(
    readonly budget: SnapshotBudget,
    private readonly cwd: string,
  ) {}

  /** Counts `files` (workspace-relative) as what the snapshots hold; why that is over the budget, or undefined. */
  countAll(files: readonly string[]): string | undefined {
    this.sizes.clear();
    this.bytes = 0;
    for (const file of files) this.set(file, this.sizeOf(file));
    if (this.sizes.size > this.budget.maxFiles) return `the workspace ${this.cwd} has ${this.sizes.size} files, more than the snapshot budget of ${this.budget.maxFiles}`;
    if (this.bytes > this.budget.maxBytes) return `the workspace ${this.cwd} holds more than the snapshot budget of ${formatBytes(this.budget.maxBytes)}`;
    return undefined;
  }

  /**
   * `changed`: the paths a snapshot would add, change or delete (git ls-files --modified --others).
   * Counts those that fit; returns those that would take the snapshots past the budget.
   */
  admit(changed: readonly string[]): LeftOut[] {
    const proposal: Proposal = new Map(changed.map((file) => [file, this.sizeOf(file)]));
    const leftOut: LeftOut[] = [];
    if (!this.fits(proposal)) {
      const units = this.units(proposal).sort((a, b) => b.bytes - a.bytes || b.files - a.files || (a.path < b.path ? -1 : 1));
      for (const unit of units) {
        if (this.fits(proposal)) break;
        for (const file of unit.members) proposal.set(file, undefined);
        leftOut.push({ path: unit.path, files: unit.files, bytes: unit.bytes });
      }
    }
    for (const [file, size] of proposal) this.set(file, size);
    return leftOut;
  }

  private fits(proposal: Proposal): boolean {
    let files = this.sizes.size;
    let bytes = this.bytes;
    for (const [file, size] of proposal) {
      const old = this.sizes.get(file);
      files += (size === undefined ? 0 : 1) - (old === undefined ? 0 : 1);
      bytes += (size ?? 0) - (old ?? 0);
    }
    return files <= this.budget.maxFiles && bytes <= this.budget.maxBytes;
  }

  /**
   * What may be left out, each adding files or bytes: a file, or the top directory of new files
   * that holds no snapshotted file (`out/` for everything a node wrote under a new `out/`).
   */
  private units(proposal: Proposal): { path: string; files: number; bytes: number; readonly members: string[] }[] {
    const held = new Set<string>();
    for (const file of this.sizes.keys()) for (let dir = path.posix.dirname(file); dir !== '.' && !held.has(dir); dir = path.posix.dirname(dir)) held.add(dir);
    const units = new Map<string, { path: string; files: number; bytes: number; readonly members: string[] }>();
    for (const [file, size] of proposal) {
      const old = this.sizes.get(file);
      if (size === undefined || (old !== undefined && size <= old)) continue;
      const key = old === undefined ? newTop(file, held) : file;
      if (excludeRule(key) === undefined) continue;
      let unit = units.get(key);
      if (!unit) units.set(key, (unit = { path: key, files: 0, bytes: 0, members: [] }));
      unit.files += 1;
      unit.bytes += size - (old ?? 0);
      unit.members.push(file);
    }
    return [...units.values()];
  }

  private set(file: string, size: number | undefined): void {
    this.bytes += (size ?? 0) - (this.sizes.get(file) ?? 0);
    if (size === undefined) this.sizes.delete(file);
    else this.sizes.set(file, size);
  }

  private sizeOf(file: string): number | undefined {
    return fs.lstatSync(path.join(this.cwd, file), { throwIfNoEntry: false })?.size;
  }
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
