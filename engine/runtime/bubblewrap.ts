import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * What one confined command may touch, run through bubblewrap (`bwrap`): the whole file system
 * read-only but for the paths below, a private /tmp, /dev and /proc of its own (its own process
 * namespace: no other process's /proc/PID/environ), and no network unless `network` (then no
 * /run either, where the daemons' sockets are).
 */
export interface Confinement {
  /** The bwrap binary that passed the probe: a Confinement exists only where bwrap works. */
  readonly bwrap: string;
  readonly network: boolean;
  /** Paths it may write (its working and stage directories, caches, sandbox_writable); absent ones are skipped. */
  readonly writable: readonly string[];
  /** Paths inside writable ones it may only read (the run directory, but for the stage directory). */
  readonly readOnly: readonly string[];
  /** Secrets it sees as an empty directory or file. */
  readonly hidden: readonly string[];
}

interface Mount {
  readonly path: string;
  readonly args: readonly string[];
}

/**
 * The bwrap arguments that confine a command started in `cwd`. Mounts go from the shallowest path
 * to the deepest, so the more specific rule wins: a working directory inside a hidden ~/.config is
 * visible, a ~/.ssh inside a working directory that is $HOME stays hidden, a stage directory inside
 * the read-only run directory is writable. At equal depth, writable beats hidden (a path listed in
 * sandbox_writable on purpose).
 */
export function bwrapArguments(confinement: Confinement, cwd: string): string[] {
  const mounts: Mount[] = [
    { path: '/', args: ['--ro-bind', '/', '/'] },
    { path: '/dev', args: ['--dev', '/dev'] },
    { path: '/proc', args: ['--proc', '/proc'] },
    { path: '/tmp', args: ['--tmpfs', '/tmp'] },
    // Without network, no daemon's socket either (docker, dbus, a database): a read-only mount does not stop connect().
    ...(confinement.network ? [] : daemonSocketDirs.filter(isRealDirectory).map((dir) => ({ path: dir, args: ['--tmpfs', dir] }))),
    ...confinement.hidden.flatMap((secret) => hide(secret)),
    ...realPaths(confinement.readOnly).map((dir) => ({ path: dir, args: ['--ro-bind', dir, dir] })),
    ...realPaths([...confinement.writable, cwd]).map((dir) => ({ path: dir, args: ['--bind', dir, dir] })),
  ];
  const ordered = mounts.map((mount, index) => ({ mount, index })).sort((a, b) => depth(a.mount.path) - depth(b.mount.path) || a.index - b.index);
  return [
    '--unshare-pid',
    '--unshare-ipc',
    ...(confinement.network ? [] : ['--unshare-net']),
    '--die-with-parent',
    ...ordered.flatMap(({ mount }) => mount.args),
    '--setenv',
    'TMPDIR',
    '/tmp',
    '--chdir',
    cwd,
  ];
}

/** Where daemons put their sockets (`/var/run` only where it is not a link to `/run`). */
const daemonSocketDirs = ['/run', '/var/run'];

/** Hidden where it really is: a secret behind a symlink (a dotfiles manager's) is empty by either name. */
function hide(secret: string): Mount[] {
  const [real] = realPaths([secret]);
  if (!real) return [];
  return [{ path: real, args: fs.statSync(real).isDirectory() ? ['--tmpfs', real] : ['--ro-bind', '/dev/null', real] }];
}

/**
 * The paths that exist, with every symlink resolved: bwrap mounts onto the path inside the new
 * root, where an absolute link would lead out of it and fail the whole command.
 */
function realPaths(files: readonly string[]): string[] {
  return files.flatMap((file) => {
    // Most of the secrets listed are absent: asked without building an exception for each, on every command.
    if (!fs.existsSync(file)) return [];
    try {
      return [fs.realpathSync(file)];
    } catch {
      return [];
    }
  });
}

function isRealDirectory(dir: string): boolean {
  try {
    return fs.lstatSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function depth(file: string): number {
  return file.split(path.sep).filter(Boolean).length;
}

export type BubblewrapStatus = { readonly ok: true; readonly bwrap: string } | { readonly ok: false; readonly reason: string };

let probed: BubblewrapStatus | undefined;

/**
 * Whether bwrap is on the PATH and can build the sandbox here (a container without user namespaces
 * has the binary but cannot use it). Probed once per process by confining `true`.
 */
export function bubblewrapStatus(): BubblewrapStatus {
  probed ??= probe();
  return probed;
}

function probe(): BubblewrapStatus {
  const bwrap = onPath('bwrap');
  if (!bwrap) return { ok: false, reason: 'bwrap is not on the PATH (Debian/Ubuntu: apt-get install bubblewrap)' };
  const result = spawnSync(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', '--die-with-parent', 'true'], { encoding: 'utf8', timeout: 10_000 });
  if (result.error) return { ok: false, reason: `${bwrap} does not start: ${result.error.message}` };
  if (result.status !== 0) return { ok: false, reason: `${bwrap} cannot build a sandbox here: ${result.stderr.trim() || `exit ${result.status ?? result.signal}`}` };
  return { ok: true, bwrap };
}

/** The absolute path of an executable on this process's PATH: a tool_env PATH never decides which bwrap confines the tool. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
