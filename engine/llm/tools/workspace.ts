import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from './tool-error';

/**
 * The run's working directory as the agent sees it: every path resolves inside it, after following
 * symlinks, or the tool call is refused.
 */
export class Workspace {
  readonly root: string;

  constructor(workDir: string) {
    this.root = fs.realpathSync(workDir);
  }

  /** Resolves `requested` (relative to the root, or absolute) to a real path inside the root. */
  resolve(requested: unknown): string {
    if (typeof requested !== 'string' || requested === '') throw new ToolError('a path (string) is required');
    const lexical = path.resolve(this.root, requested);
    const real = realpathOfNearestExisting(lexical);
    if (!this.contains(lexical) || !this.contains(real)) {
      throw new ToolError(`path '${requested}' resolves outside the working directory ${this.root}; tools may only touch files inside it`);
    }
    return real;
  }

  relative(absolute: string): string {
    return path.relative(this.root, absolute) || '.';
  }

  private contains(candidate: string): boolean {
    return candidate === this.root || candidate.startsWith(this.root + path.sep);
  }
}

/** realpath of the path itself, or of its closest existing ancestor with the missing tail appended. */
function realpathOfNearestExisting(absolute: string): string {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return path.join(fs.realpathSync(current), ...missing.reverse());
    } catch {
      if (isSymlink(current)) throw new ToolError(`path '${absolute}' goes through a dangling symbolic link; it is refused`);
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

function isSymlink(candidate: string): boolean {
  try {
    return fs.lstatSync(candidate).isSymbolicLink();
  } catch {
    return false;
  }
}
