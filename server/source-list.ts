import fs from 'node:fs';
import path from 'node:path';
import type { Roots } from './roots';

/** Enough for any project's pipelines; a root holding a whole file system is not walked to its end. */
const MAX_FILES = 2000;
const MAX_DEPTH = 6;
/** Folders that hold no pipeline to submit: dependencies, version control, run directories. */
const SKIPPED = new Set(['node_modules', '.git', '.attractor-runs']);

/** GET /sources: the .dot files under each root (relative to it, sorted), which POST /pipelines takes as `path`. */
export function listSources(roots: Roots, logsRoot: string): { roots: Array<{ root: string; files: string[] }> } {
  let budget = MAX_FILES;
  const walk = (root: string, dir: string, depth: number, files: string[]): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (budget <= 0) return;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && depth < MAX_DEPTH && !SKIPPED.has(entry.name) && !entry.name.startsWith('.') && full !== logsRoot) walk(root, full, depth + 1, files);
      else if (entry.isFile() && entry.name.endsWith('.dot')) {
        files.push(path.relative(root, full));
        budget--;
      }
    }
  };
  return {
    roots: roots.dirs.map((root) => {
      const files: string[] = [];
      walk(root, root, 0, files);
      return { root, files };
    }),
  };
}
