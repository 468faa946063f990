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
  if (!holdsNonBlankByte(file)) return { ok: false, axis: 'non_trivial', message: `must_write violated: ${declared} is empty or only whitespace` };
  return { ok: true };
}

/** Reads only until the first non-whitespace byte: an artifact may be gigabytes. */
function holdsNonBlankByte(file: string): boolean {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) return false;
      if (/\S/.test(buffer.toString('utf8', 0, read))) return true;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The freshness floor, read from the filesystem's own clock. File timestamps come from a coarse
 * kernel clock that can lag the process clock by a few milliseconds, so comparing an artifact's
 * mtime with `Date.now()` can refuse a file written during the node. Instead: stamp a marker, then
 * wait until the filesystem clock has moved past it; every write during the node is then strictly
 * newer than the floor, and a file stamped with the floor itself (a forged mtime) is refused.
 */
export function freshnessFloor(stageDir: string): number {
  fs.mkdirSync(stageDir, { recursive: true });
  const marker = path.join(stageDir, '.must_write_floor');
  fs.writeFileSync(marker, '');
  const floor = fs.statSync(marker).mtimeMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 100; i++) {
    fs.writeFileSync(marker, '');
    if (fs.statSync(marker).mtimeMs > floor) break;
    Atomics.wait(pause, 0, 0, 1);
  }
  fs.rmSync(marker, { force: true });
  return floor;
}
