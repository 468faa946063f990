import fs from 'node:fs';
import path from 'node:path';
import { HttpError } from '../host/protocol/serve-api';

/**
 * The directories a server was started with: it runs pipelines and tools only under them (the
 * extension's workspace-trust rule, for a server). Symbolic links are resolved before the check,
 * so a link inside a root cannot lead outside it.
 */
export class Roots {
  readonly dirs: readonly string[];

  constructor(dirs: readonly string[]) {
    this.dirs = dirs.map((dir) => fs.realpathSync(path.resolve(dir)));
  }

  get primary(): string {
    return this.dirs[0] as string;
  }

  /** The real path of `candidate` (relative ones from `base`); 403 outside every root, 400 when it does not exist. */
  resolve(candidate: string, base: string, what: string): string {
    const lexical = path.resolve(base, candidate);
    this.refuseOutside(lexical, what);
    let real: string;
    try {
      real = fs.realpathSync(lexical);
    } catch {
      throw new HttpError(400, `${what} ${lexical} does not exist`);
    }
    this.refuseOutside(real, what);
    return real;
  }

  private refuseOutside(candidate: string, what: string): void {
    const inside = this.dirs.some((root) => candidate === root || candidate.startsWith(`${root}${path.sep}`));
    if (!inside) throw new HttpError(403, `${what} ${candidate} is outside the server's roots (${this.dirs.join(', ')})`);
  }
}
