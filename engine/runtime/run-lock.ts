import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write';
import { fileIdentity } from './file-identity';
import { groupGuard } from './group-guard';
import { hostIdentity, isThisHost } from './host-identity';
import { killProcessGroup } from './process';
import { isSameProcess, processStartTime } from './process-identity';
import { ProcessGroupRecords } from './process-records';
import { isRecord } from '../model/json';
import { runFile } from './run-layout';

/** Who holds a run directory: the engine process, named by pid and start time, and its lease. */
interface LockHolder {
  readonly pid: number;
  readonly start_time?: string;
  /** The host name, for people. */
  readonly host: string;
  /** `hostIdentity()`: whether `pid` can be checked here (absent from an engine before host identities: the host name decides). */
  readonly host_id?: string;
  readonly since: string;
  /** How long the lock stays the holder's after `renewed_at` unless renewed (absent: an engine before leases). */
  readonly lease_ms?: number;
  readonly renewed_at?: string;
  /** In a working directory's lock: the run directory of the run working there. */
  readonly run?: string;
}

/** The lock file as read: its holder and its exact text (a takeover checks it moved that very record). */
type ReadLock = { readonly kind: 'held'; readonly holder: LockHolder; readonly text: string } | { readonly kind: 'unreadable'; readonly text: string } | { readonly kind: 'gone' };

export class RunLockedError extends Error {
  override readonly name = 'RunLockedError';
}

/** The engine's lock was taken over (its lease lapsed, say while the machine stalled): it must write nothing more. */
export class RunLockLostError extends Error {
  override readonly name = 'RunLockLostError';
}

/** A working directory's lock, beside the run directories a run keeps there by default (never snapshotted). */
const WORKDIR_LOCK_FILE = path.join('.attractor-runs', 'workdir.lock');
/** A lock file without a readable holder is being written, unless it is older than this. */
const UNREADABLE_LOCK_GRACE_MS = 10_000;
/** How long a lock outlives its last renewal; the holder renews every third of it. */
const DEFAULT_LEASE_MS = 60_000;
/** `ATTRACTOR_RUN_LOCK_LEASE_MS` sets the lease of the locks this process takes (a slow shared file system wants more). */
const LEASE_ENV = 'ATTRACTOR_RUN_LOCK_LEASE_MS';

/** The locks this process holds, by run directory: a node boundary is committed only under one still held. */
const held = new Map<string, RunLock>();
/** Every lock this process holds and has not lost (run and working directories): the group guard's deadline is theirs. */
const live = new Set<RunLock>();

/**
 * One engine per run directory, for the life of the engine: two engines would run the same node
 * twice and reap each other's tools. A lock whose holder is gone (or whose pid now names another
 * process) is stale and taken over. A holder on another host (a shared file system) cannot be
 * checked that way: the holder renews its lease every third of it, and a lock whose lease lapsed is
 * taken over. A holder commits a node boundary only after renewing its lease (`fence`), and never
 * once the lock is no longer its own, so a finished node is committed by one engine only.
 */
export class RunLock {
  private renewedAt: number;
  private lost: string | undefined;
  /** The lock file's identity (inode, size, times) when it last read as this engine's: unchanged, it still is. */
  private verified: string | undefined;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    /** The run directory (absolute, as `fence` looks it up), or undefined for a working directory's lock. */
    private readonly root: string | undefined,
    private readonly file: string,
    private holder: LockHolder,
    /** The stale holder this engine took the lock over from, if it did. */
    private readonly previous: LockHolder | undefined,
  ) {
    this.renewedAt = Date.parse(holder.renewed_at ?? holder.since);
    this.timer = setInterval(() => this.renew(true), leaseOf(holder) / 3);
    this.timer.unref();
    if (root) held.set(root, this);
    live.add(this);
    RunLock.updateGuard();
  }

  static acquire(root: string): RunLock {
    fs.mkdirSync(root, { recursive: true });
    const lock = acquireFile(runFile(root, 'lock'), {}, (current) => describeHolder(root, current));
    return new RunLock(path.resolve(root), lock.file, lock.holder, lock.previous);
  }

  /**
   * Until when (epoch ms, by this host's clock) commands that an engine on another host started in the
   * run directory `root` may still run, at worst, though their records say nothing more: an engine's
   * group guard kills its commands three quarters of the lease after the engine last renewed its lock
   * (`guardDeadline`), so by the lease and a twelfth by a clock up to a third of the lease ahead; any
   * engine before the holder this one took over from lost the lock before that holder renewed it.
   * Undefined when this process holds no lock on `root`.
   */
  static foreignCommandsEnd(root: string): number | undefined {
    const lock = held.get(path.resolve(root));
    if (!lock) return undefined;
    const previous = lock.previous?.renewed_at === undefined ? undefined : Date.parse(lock.previous.renewed_at) + leaseOf(lock.previous);
    // Without a holder taken over (the lock was free), a command left behind is judged by this engine's own lease.
    return (previous ?? Date.now() + leaseOf(lock.holder)) + leaseOf(lock.holder) / 6;
  }

  /**
   * One live engine per working directory as well: two runs in one directory overwrite each other's
   * files, blame each other's changes, and time travel in one deletes the other's work. Undefined
   * when the directory cannot hold the lock (read-only): nothing can be overwritten there either.
   */
  static acquireWorkingDirectory(cwd: string, runDirectory: string): RunLock | undefined {
    const file = path.join(cwd, WORKDIR_LOCK_FILE);
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
    } catch (error) {
      if (['EACCES', 'EROFS', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
      throw error;
    }
    const lock = acquireFile(file, { run: path.resolve(runDirectory) }, (current) => describeWorkingDirectoryHolder(cwd, current));
    return new RunLock(undefined, lock.file, lock.holder, lock.previous);
  }

  /** Why `root` is held by a live engine (the refusal acquire would give), or undefined when it is free. */
  static liveHolder(root: string): string | undefined {
    const current = readLock(runFile(root, 'lock'));
    return current.kind === 'held' && isLive(current.holder) ? describeHolder(root, current) : undefined;
  }

  /** Why the working directory `cwd` is in use by a live engine, or undefined when it is free. */
  static workingDirectoryHolder(cwd: string): string | undefined {
    const current = readLock(path.join(cwd, WORKDIR_LOCK_FILE));
    return current.kind === 'held' && isLive(current.holder) ? describeWorkingDirectoryHolder(cwd, current) : undefined;
  }

  /**
   * Before a commit to `root`: checks that the lock this process holds there (none: nothing to check)
   * is still its own with at least two thirds of its lease to run, renewing it when a third has gone,
   * or throws RunLockLostError.
   */
  static fence(root: string): void {
    const lock = held.get(path.resolve(root));
    if (lock && !lock.renew(false)) throw new RunLockLostError(`${root}: ${lock.lost ?? 'the run lock was lost'}; this engine stops without committing`);
  }

  /** Removes the lock if it is still this engine's. */
  release(): void {
    clearInterval(this.timer);
    if (this.root && held.get(this.root) === this) held.delete(this.root);
    if (live.delete(this)) RunLock.updateGuard();
    const current = readLock(this.file);
    if (current.kind === 'held' && isSameHolder(current.holder, this.holder)) fs.rmSync(this.file, { force: true });
  }

  /**
   * Whether the lock is still this engine's and its lease has not come near lapsing (another host,
   * whose clock may run ahead by up to a third of the lease, could be taking it over); if so, rewrites
   * it with a fresh `renewed_at` (`always`, or once a third of the lease has gone). False, for good,
   * once it is lost.
   */
  private renew(always: boolean): boolean {
    if (this.lost) return false;
    const lease = leaseOf(this.holder);
    const sinceRenewal = Date.now() - this.renewedAt;
    // A node boundary needs no read of a lock file no one replaced or rewrote since it read as ours:
    // a takeover renames a new record into place, a removal leaves nothing to stat.
    const identity = fileIdentity(this.file);
    if (!always && sinceRenewal < lease / 3 && identity !== undefined && identity === this.verified) return true;
    const current = readLock(this.file);
    if (current.kind !== 'held' || !isSameHolder(current.holder, this.holder)) {
      this.lost = current.kind === 'held' ? `the run lock was taken over by pid ${current.holder.pid} on ${current.holder.host}` : 'the run lock file was removed';
    } else if (sinceRenewal > (lease * 2) / 3) {
      this.lost = `the run lock's lease (${lease} ms) was not renewed for ${sinceRenewal} ms (the engine stalled) and may have been taken over`;
    }
    if (this.lost) {
      clearInterval(this.timer);
      this.stopCommands();
      return false;
    }
    // Taken before the read: a change after it gives another identity, so the next fence reads again.
    this.verified = identity;
    if (!always && sinceRenewal < lease / 3) return true;
    const now = new Date();
    this.holder = { ...this.holder, renewed_at: now.toISOString() };
    writeFileAtomic(this.file, `${JSON.stringify(this.holder)}\n`);
    this.renewedAt = now.getTime();
    RunLock.updateGuard();
    return true;
  }

  /**
   * When the group guard kills this process's commands unless the lock is renewed before: three
   * quarters of the lease after the last renewal. That is a twelfth after the engine itself counts the
   * lock as lost (`renew`: two thirds), so that a renewal just in time reaches the guard first, and
   * before another host may take the lock over (after the lease, by a clock at most a third ahead).
   */
  private guardDeadline(): number {
    return this.renewedAt + (leaseOf(this.holder) * 3) / 4;
  }

  /** Tells the group guard the earliest deadline of the locks this process holds. */
  private static updateGuard(): void {
    let deadline: number | undefined;
    for (const lock of live) deadline = Math.min(deadline ?? Number.POSITIVE_INFINITY, lock.guardDeadline());
    groupGuard.killBy(deadline);
  }

  /** The lock is lost: the commands this engine runs in the run may be racing the node's next run elsewhere. */
  private stopCommands(): void {
    if (live.delete(this)) RunLock.updateGuard();
    const run = this.root ?? this.holder.run;
    if (run) new ProcessGroupRecords(runFile(run, 'processGroups')).killOwn((group) => killProcessGroup(group, 'SIGKILL'));
  }
}

/** Creates `file` holding this engine's record, taking over a stale one; a live holder is refused with `describe`'s reason. */
function acquireFile(file: string, extra: Pick<LockHolder, 'run'>, describe: (current: Exclude<ReadLock, { kind: 'gone' }>) => string): { file: string; holder: LockHolder; previous?: LockHolder } {
  const startTime = processStartTime(process.pid);
  const now = new Date().toISOString();
  const holder: LockHolder = { pid: process.pid, ...(startTime ? { start_time: startTime } : {}), host: os.hostname(), host_id: hostIdentity(), since: now, lease_ms: leaseMs(), renewed_at: now, ...extra };
  let previous: LockHolder | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(file, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const current = readLock(file);
      if (current.kind === 'gone') continue;
      if (current.kind === 'unreadable' ? ageMs(file) < UNREADABLE_LOCK_GRACE_MS : isLive(current.holder)) throw new RunLockedError(describe(current));
      takeOver(file, current);
      if (current.kind === 'held') previous = current.holder;
      continue;
    }
    try {
      fs.writeSync(fd, `${JSON.stringify(holder)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return { file, holder, ...(previous ? { previous } : {}) };
  }
  throw new RunLockedError(`${file} is being taken by another engine right now; try again`);
}

/**
 * Removes a stale lock so that the next `wx` open can take it, atomically: the record is first moved
 * aside under a name of this engine's own, and only that very record is removed. A record moved by
 * mistake (a newer lock, written since it was judged) is put back.
 */
function takeOver(file: string, judged: Exclude<ReadLock, { kind: 'gone' }>): void {
  const aside = `${file}.${os.hostname()}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.stale`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = readLock(aside);
  if (moved.kind !== 'gone' && moved.text !== judged.text) {
    try {
      fs.linkSync(aside, file);
    } catch {
      // Another engine created a lock meanwhile: the one moved aside finds its lock lost at its next commit.
    }
  }
  fs.rmSync(aside, { force: true });
}

/** Same host: the holder's process must still run. Another host: the holder's lease must not have lapsed (an engine before leases counts as live). */
function isLive(holder: LockHolder): boolean {
  if (isThisHost(holder.host_id, holder.host)) return isSameProcess(holder.pid, holder.start_time);
  return holder.renewed_at === undefined || Date.now() <= Date.parse(holder.renewed_at) + leaseOf(holder);
}

function isSameHolder(a: LockHolder, b: LockHolder): boolean {
  return a.pid === b.pid && a.host === b.host && a.host_id === b.host_id && a.since === b.since;
}

function leaseOf(holder: LockHolder): number {
  return holder.lease_ms ?? DEFAULT_LEASE_MS;
}

function leaseMs(): number {
  const text = process.env[LEASE_ENV];
  if (text === undefined || text === '') return DEFAULT_LEASE_MS;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 300 || value > 86_400_000) throw new Error(`${LEASE_ENV} must be a whole number of milliseconds from 300 to 86400000, got "${text}"`);
  return value;
}

function readLock(file: string): ReadLock {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { kind: 'gone' };
  }
  try {
    const data: unknown = JSON.parse(text);
    if (isRecord(data) && typeof data.pid === 'number' && typeof data.since === 'string' && typeof data.host === 'string') {
      const holder: LockHolder = {
        pid: data.pid,
        since: data.since,
        host: data.host,
        ...(typeof data.host_id === 'string' ? { host_id: data.host_id } : {}),
        ...(typeof data.start_time === 'string' ? { start_time: data.start_time } : {}),
        ...(typeof data.lease_ms === 'number' && data.lease_ms > 0 ? { lease_ms: data.lease_ms } : {}),
        ...(typeof data.renewed_at === 'string' && !Number.isNaN(Date.parse(data.renewed_at)) ? { renewed_at: data.renewed_at } : {}),
        ...(typeof data.run === 'string' ? { run: data.run } : {}),
      };
      return { kind: 'held', holder, text };
    }
  } catch {
    // Written by a process killed half-way, or being written now.
  }
  return { kind: 'unreadable', text };
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function describeHolder(root: string, current: Exclude<ReadLock, { kind: 'gone' }>): string {
  return `${root} is in use by ${holderName(current)}: one engine per run directory. Wait for it to end or stop it, then resume.`;
}

function describeWorkingDirectoryHolder(cwd: string, current: Exclude<ReadLock, { kind: 'gone' }>): string {
  const run = current.kind === 'held' && current.holder.run ? ` running ${current.holder.run}` : '';
  return `the working directory ${cwd} is in use by ${holderName(current)}${run}: one live engine per working directory, as two would overwrite each other's files. Wait for it to end or stop it, or give this run another working directory.`;
}

function holderName(current: Exclude<ReadLock, { kind: 'gone' }>): string {
  if (current.kind !== 'held') return 'another engine';
  const { pid, host, since, renewed_at: renewed } = current.holder;
  const lease = !isThisHost(current.holder.host_id, host) && renewed ? `, its lease renewed at ${renewed} lapses after ${leaseOf(current.holder)} ms` : '';
  return `another engine (pid ${pid} on ${host}, since ${since}${lease})`;
}
