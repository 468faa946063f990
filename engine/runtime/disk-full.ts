/**
 * A full disk (ENOSPC) or an exhausted quota (EDQUOT) under the run directory is not a bug of the
 * engine nor a node's failure: the run stops at its last committed node boundary, says which file
 * could not be written, and `attractor resume` continues it once there is room again.
 */

const CODES = new Set(['ENOSPC', 'EDQUOT']);

class DiskFullError extends Error {
  override readonly name = 'DiskFullError';

  constructor(
    readonly file: string,
    readonly code: string,
  ) {
    super(`no space left on the disk of the run directory: writing ${file} failed (${code})`);
  }
}

export function isDiskFull(error: unknown): boolean {
  return error instanceof DiskFullError || CODES.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}

/** Runs a write of `file`; a full disk comes out as a DiskFullError naming the file. */
export function writing<T>(file: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && CODES.has(code) && !(error instanceof DiskFullError)) throw new DiskFullError(file, code);
    throw error;
  }
}

/** The failure reason of a run stopped by a full disk: what failed, and how to go on. */
export function diskFullReason(error: unknown): string {
  const what = error instanceof DiskFullError ? error.message : `no space left on the disk of the run directory (${(error as NodeJS.ErrnoException).code ?? 'ENOSPC'}: ${(error as Error).message})`;
  return `${what}; the run stopped at its last finished node: free some space, then \`attractor resume\` continues it`;
}
