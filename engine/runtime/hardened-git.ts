import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The one way the engine runs git, on snapshot stores that may come from anywhere: a run directory
 * committed to a cloned repository, or forged outright. A store is only ever used for its objects,
 * its index and its exclude file. Everything else git would read from a repository — its config
 * (`core.fsmonitor`, `diff.*.textconv`, `filter.*`, hooks, pagers: each a command git runs), its
 * `info/attributes`, its replace refs and grafts — comes from a private git directory this process
 * makes for itself, never from the store. System and global configuration are off, every key that
 * names a command is overridden on the command line as well, and attributes (the workspace's own
 * `.gitattributes` included) can neither pick a driver nor convert a file's bytes.
 */

/** What a git call works on. */
export interface GitTarget {
  /** The object directory (`<store>/objects`; its `info/alternates` are followed). */
  readonly objects: string;
  /** The index file; absent for calls that only read stored objects. */
  readonly index?: string;
  /** The working tree; absent for calls that only read stored objects. */
  readonly workTree?: string;
  /** Ignore rules (gitignore syntax) besides the working tree's own .gitignore files. */
  readonly excludesFile?: string;
}

class GitError extends Error {
  override readonly name = 'GitError';
}

/**
 * `id` when it is a git object id as the stores name snapshots (40 lowercase hex digits, SHA-1), or
 * a GitError naming it: a value read from a run directory is checked before it reaches git's command line.
 */
export function checkedObjectId(id: unknown, what: string): string {
  if (typeof id !== 'string' || !/^[0-9a-f]{40}$/.test(id)) throw new GitError(`${what} ${JSON.stringify(id)} is not a snapshot id (40 hex digits); the run directory may have been altered`);
  return id;
}

/** Keys whose value is a command git may run, or that decide how bytes are read and written back. */
const OVERRIDES: readonly string[] = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.pager=cat',
  'core.editor=false',
  'core.sshCommand=false',
  'core.askPass=false',
  'core.attributesFile=/dev/null',
  'credential.helper=',
  'protocol.allow=never',
  'core.untrackedCache=false',
  'core.splitIndex=false',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.symlinks=true',
  'core.fileMode=true',
  'core.ignoreCase=false',
  'core.precomposeUnicode=false',
  'core.quotePath=false',
  'gc.auto=0',
];

/**
 * The private git directory: an empty repository of this process's own (mode 0700), whose
 * `info/attributes` take precedence over every `.gitattributes`: no diff driver, no filter, no
 * end-of-line or encoding conversion, so a snapshot holds a file's bytes as they are.
 */
let privateGitDir: string | undefined;

function gitDir(): string {
  if (privateGitDir && fs.existsSync(path.join(privateGitDir, 'HEAD'))) return privateGitDir;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-git-'));
  const dir = path.join(root, 'git');
  for (const sub of ['refs', 'objects', 'info']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
  fs.writeFileSync(path.join(dir, 'HEAD'), 'ref: refs/heads/none\n');
  fs.writeFileSync(path.join(dir, 'config'), '[core]\n\trepositoryformatversion = 0\n\tbare = false\n');
  fs.writeFileSync(path.join(dir, 'info', 'attributes'), '* -text -filter -ident -working-tree-encoding !eol !diff !merge\n');
  fs.mkdirSync(path.join(root, 'empty'));
  process.once('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  privateGitDir = dir;
  return dir;
}

/**
 * Runs `git args` on `target` and returns its stdout. Ids read from a run directory must pass
 * `checkedObjectId` and follow `--end-of-options` in `args`.
 */
export function runGit(target: GitTarget, args: readonly string[], input?: string): string {
  const dir = gitDir();
  const overrides = [...OVERRIDES, `core.excludesFile=${target.excludesFile ?? '/dev/null'}`].flatMap((setting) => ['-c', setting]);
  const result = spawnSync('git', ['--no-pager', ...overrides, ...args], {
    // A call that reads stored objects only runs in an empty directory of this process's own.
    cwd: target.workTree ?? path.join(path.dirname(dir), 'empty'),
    ...(input === undefined ? {} : { input }),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: {
      PATH: process.env.PATH ?? '',
      GIT_DIR: dir,
      GIT_OBJECT_DIRECTORY: target.objects,
      GIT_INDEX_FILE: target.index ?? path.join(dir, 'index'),
      GIT_WORK_TREE: target.workTree ?? path.join(path.dirname(dir), 'empty'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_ATTR_NOSYSTEM: '1',
      GIT_NO_REPLACE_OBJECTS: '1',
      GIT_LITERAL_PATHSPECS: '1',
      GIT_TERMINAL_PROMPT: '0',
      HOME: dir,
      LC_ALL: 'C',
    },
  });
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    throw new GitError(code === 'ENOENT' ? 'git is not installed (workspace snapshots need the `git` command on PATH)' : `git could not run: ${result.error.message}`);
  }
  if (result.status !== 0) throw new GitError(`git ${args[0] ?? ''} failed: ${result.stderr.trim()}`);
  return result.stdout;
}
