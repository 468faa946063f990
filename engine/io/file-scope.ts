import fs from 'node:fs';
import path from 'node:path';
import { tryReadFileChecked } from './read-file-checked';

/** Where a path stands in a scope: its real path inside, or why it may not be used. */
type Located = { readonly kind: 'inside'; readonly path: string } | { readonly kind: 'outside' | 'missing'; readonly problem: string };

/**
 * The files a run may load on its pipeline's word: sub-pipelines (`dot_file`), manager children
 * (`stack.child_dotfile`), response schemas. A person's own run loads any file (`anywhere`); a server
 * confines the runs it starts to its roots (`within`). Every load of a run goes through its scope,
 * from admission to the last child it starts. Symbolic links are resolved before the check, so a
 * link inside a root cannot lead outside it.
 */
export class FileScope {
  static readonly anywhere = new FileScope(undefined, 'anywhere');

  /** Only under `roots` (resolved to their real paths now); `name` says whose they are in refusals ("the server's roots"). */
  static within(roots: readonly string[], name: string): FileScope {
    return new FileScope(
      roots.map((root) => fs.realpathSync(path.resolve(root))),
      name,
    );
  }

  private constructor(
    /** Real paths; undefined: no confinement. */
    readonly roots: readonly string[] | undefined,
    private readonly name: string,
  ) {}

  /** Where `file` (absolute) stands: outside the roots, missing, or its real path inside. */
  locate(file: string): Located {
    if (!this.holds(file)) return { kind: 'outside', problem: `${file} is outside ${this.described()}` };
    let real: string;
    try {
      real = fs.realpathSync(file);
    } catch (error) {
      return { kind: 'missing', problem: `${file} does not exist (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
    }
    return this.holds(real) ? { kind: 'inside', path: real } : { kind: 'outside', problem: `${file} leads to ${real}, outside ${this.described()}` };
  }

  /** Why the scope refuses `file` (absolute): outside the roots as named or once its links are resolved; undefined when it does not (a missing file included). */
  refusal(file: string): string | undefined {
    if (!this.roots) return undefined;
    const where = this.locate(file);
    return where.kind === 'outside' ? where.problem : undefined;
  }

  /** Reads a file the run may load, as tryReadFileChecked does; a file outside the scope is a problem, not read. */
  read(file: string, limit: number): { readonly text: string } | { readonly problem: string } {
    if (!this.roots) return tryReadFileChecked(file, limit);
    const where = this.locate(file);
    if (where.kind === 'outside') return { problem: where.problem };
    // A missing file is reported by the read itself, as it would be anywhere.
    return tryReadFileChecked(where.kind === 'inside' ? where.path : file, limit);
  }

  private holds(file: string): boolean {
    return !this.roots || this.roots.some((root) => file === root || file.startsWith(`${root}${path.sep}`));
  }

  private described(): string {
    return `${this.name} (${(this.roots ?? []).join(', ')})`;
  }
}
