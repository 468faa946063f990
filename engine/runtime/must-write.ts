import fs from 'node:fs';
import path from 'node:path';

export type MustWriteCheck = { readonly ok: true } | { readonly ok: false; readonly axis: 'existence' | 'freshness' | 'non_trivial'; readonly message: string };

/**
 * Ledger must_write: the artifact exists, was modified strictly after the node started (an equal
 * mtime is refused: it can be forged or come from a coarse clock), and holds a non-blank byte.
 */
export function checkMustWrite(declared: string, cwd: string, nodeStartWallMs: number): MustWriteCheck {
  const file = path.resolve(cwd, declared);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return { ok: false, axis: 'existence', message: `must_write violated: ${declared} was not written` };
  }
  if (!stat.isFile()) return { ok: false, axis: 'existence', message: `must_write violated: ${declared} is not a file` };
  if (!(stat.mtimeMs > nodeStartWallMs)) {
    return { ok: false, axis: 'freshness', message: `must_write violated: ${declared} predates this node's start (stale artifact, modified ${new Date(stat.mtimeMs).toISOString()})` };
  }
  if (!fs.readFileSync(file, 'utf8').trim()) return { ok: false, axis: 'non_trivial', message: `must_write violated: ${declared} is empty or only whitespace` };
  return { ok: true };
}
