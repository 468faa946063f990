import fs from 'node:fs';
import path from 'node:path';

/** Size and mtime by relative path; enough to tell which files a run created or changed. */
export type FileSnapshot = ReadonlyMap<string, string>;

/** Directories that are never a run's work product (and can be huge). */
const skipped = new Set(['.git', 'node_modules', '.attractor-runs']);
const maxEntries = 5000;

/** A bounded walk of `root`: a workspace can be large, and the listing is only a convenience. */
export function snapshotFiles(root: string): FileSnapshot {
  const files = new Map<string, string>();
  const queue = [''];
  let seen = 0;
  while (queue.length > 0 && seen < maxEntries) {
    const dir = queue.shift() as string;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > maxEntries) break;
      const relative = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!skipped.has(entry.name)) queue.push(relative);
      } else if (entry.isFile()) {
        try {
          const stat = fs.statSync(path.join(root, relative));
          files.set(relative, `${stat.size}:${stat.mtimeMs}`);
        } catch {
          // Gone between readdir and stat: not a file the run left behind.
        }
      }
    }
  }
  return files;
}

/** Files that exist after and are new or different from before, sorted. */
export function changedFiles(before: FileSnapshot, after: FileSnapshot): string[] {
  return [...after].filter(([file, stamp]) => before.get(file) !== stamp).map(([file]) => file).sort();
}
