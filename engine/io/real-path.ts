import fs from 'node:fs';
import path from 'node:path';

/**
 * `target`'s real path (links resolved), for telling whether two names are one directory; one not
 * made yet is named below its nearest existing parent's real path, as it will be once made.
 */
export function realPathOf(target: string): string {
  const resolved = path.resolve(target);
  try {
    return fs.realpathSync(resolved);
  } catch {
    const parent = path.dirname(resolved);
    return parent === resolved ? resolved : path.join(realPathOf(parent), path.basename(resolved));
  }
}
