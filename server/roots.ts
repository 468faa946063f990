import path from 'node:path';
import { FileScope } from '../engine/io/file-scope';
import { HttpError } from '../host/protocol/serve-api';
import { ROOTS_NAME } from './submission-check';

/**
 * The directories a server was started with: it runs pipelines and working directories only under
 * them (the extension's workspace-trust rule, for a server), and its runs load files only there
 * (`scope`: sub-pipelines, manager children, schemas). Symbolic links are resolved before the check,
 * so a link inside a root cannot lead outside it.
 */
export class Roots {
  readonly scope: FileScope;
  readonly dirs: readonly string[];

  constructor(dirs: readonly string[]) {
    this.scope = FileScope.within(dirs, ROOTS_NAME);
    this.dirs = this.scope.roots ?? [];
  }

  get primary(): string {
    return this.dirs[0] as string;
  }

  /** The real path of `candidate` (relative ones from `base`); 403 outside every root, 400 when it does not exist. */
  resolve(candidate: string, base: string, what: string): string {
    const where = this.scope.locate(path.resolve(base, candidate));
    if (where.kind === 'inside') return where.path;
    throw new HttpError(where.kind === 'outside' ? 403 : 400, `${what} ${where.problem}`);
  }
}
