import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isSameProcess, processStartTime } from './process-identity';
import { isRecord } from '../model/json';

/** Who holds a run directory: the engine process, named by pid and start time. */
interface LockHolder {
  readonly pid: number;
  readonly start_time?: string;
  readonly host: string;
  readonly since: string;
}

export class RunLockedError extends Error {
  override readonly name = 'RunLockedError';
}

const LOCK_FILE = 'engine.lock';
/** A lock file without a readable holder is being written, unless it is older than this. */
const UNREADABLE_LOCK_GRACE_MS = 10_000;

/**
 * One engine per run directory, for the life of the engine: two engines would run the same node
 * twice and reap each other's tools. A lock whose holder is gone (or whose pid now names another
 * process) is stale and taken over.
 */
export class RunLock {
  private constructor(
    private readonly file: string,
    private readonly holder: LockHolder,
  ) {}

  static acquire(root: string): RunLock {
    fs.mkdirSync(root, { recursive: true });
    const file = path.join(root, LOCK_FILE);
    const startTime = processStartTime(process.pid);
    const holder: LockHolder = { pid: process.pid, ...(startTime ? { start_time: startTime } : {}), host: os.hostname(), since: new Date().toISOString() };
    for (let attempt = 0; attempt < 3; attempt++) {
      let fd: number;
      try {
        fd = fs.openSync(file, 'wx');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const current = readHolder(file);
        if (current === 'gone') continue;
        if (current === 'unreadable' ? ageMs(file) < UNREADABLE_LOCK_GRACE_MS : isLive(current)) {
          throw new RunLockedError(describeHolder(root, current));
        }
        fs.rmSync(file, { force: true });
        continue;
      }
      try {
        fs.writeSync(fd, `${JSON.stringify(holder)}\n`);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      return new RunLock(file, holder);
    }
    throw new RunLockedError(`${root} is being taken by another engine right now; try again`);
  }

  /** Why `root` is held by a live engine (the refusal acquire would give), or undefined when it is free. */
  static liveHolder(root: string): string | undefined {
    const current = readHolder(path.join(root, LOCK_FILE));
    return current !== 'gone' && current !== 'unreadable' && isLive(current) ? describeHolder(root, current) : undefined;
  }

  /** Removes the lock if it is still this engine's. */
  release(): void {
    const current = readHolder(this.file);
    if (current !== 'gone' && current !== 'unreadable' && current.pid === this.holder.pid && current.since === this.holder.since) fs.rmSync(this.file, { force: true });
  }
}

/** A holder on another host (a shared file system) cannot be checked, so it counts as live. */
function isLive(holder: LockHolder): boolean {
  return holder.host !== os.hostname() || isSameProcess(holder.pid, holder.start_time);
}

function readHolder(file: string): LockHolder | 'unreadable' | 'gone' {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return 'gone';
  }
  try {
    const data: unknown = JSON.parse(text);
    if (isRecord(data) && typeof data.pid === 'number' && typeof data.since === 'string' && typeof data.host === 'string') {
      return { pid: data.pid, since: data.since, host: data.host, ...(typeof data.start_time === 'string' ? { start_time: data.start_time } : {}) };
    }
  } catch {
    // Written by a process killed half-way, or being written now.
  }
  return 'unreadable';
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function describeHolder(root: string, holder: LockHolder | 'unreadable'): string {
  const who = holder === 'unreadable' ? 'another engine' : `another engine (pid ${holder.pid} on ${holder.host}, since ${holder.since})`;
  return `${root} is in use by ${who}: one engine per run directory. Wait for it to end or stop it, then resume.`;
}
