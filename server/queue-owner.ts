import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { hostIdentity, isThisHost } from '../engine/runtime/host-identity';
import { isSameProcess, processStartTime } from '../engine/runtime/process-identity';
import { count, object, text, type Infer } from '../host/protocol/guards';

/** The server keeping a queue: its process, named by pid and start time, and its host. */
const owner = object({ pid: count, host: text(1000), host_id: text(1000), since: text(100) }, { start_time: text(100) });
type Owner = Infer<typeof owner>;

/**
 * One server keeps a queue at a time: two servers on one logs root would each take up the other's
 * submissions at a restart and start them twice. Claims `dir` for this process (`owner.json`,
 * created exclusively); a claim whose process is gone from this host (a server killed outright) is
 * taken over; a live one, or one made on another host (a home on a shared file system, where its
 * process cannot be checked), is refused with who holds it. Returns the release.
 */
export function claimQueue(dir: string): () => void {
  const file = path.join(dir, 'owner.json');
  const startTime = processStartTime(process.pid);
  const mine = JSON.stringify({ pid: process.pid, ...(startTime ? { start_time: startTime } : {}), host: os.hostname(), host_id: hostIdentity(), since: new Date().toISOString() } satisfies Owner);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createWhole(file, mine)) {
      return () => {
        if (readText(file) === mine) fs.rmSync(file, { force: true });
      };
    }
    const found = readText(file);
    const holder = readOwner(found);
    if (holder && (!isThisHost(holder.host_id, holder.host) || isSameProcess(holder.pid, holder.start_time))) {
      throw new Error(`another attractor serve (pid ${holder.pid} on ${holder.host}, since ${holder.since}) keeps the queue of this logs root (${dir}): one server per logs root. Stop it; if it is gone for good, remove ${file}`);
    }
    // Its server is gone (or it is no claim: written by hand, or by a version that wrote it in place).
    if (found !== undefined && !removeStaleClaim(file, found)) break;
  }
  throw new Error(`another attractor serve claimed the queue of this logs root (${dir}) at the same moment`);
}

/**
 * Creates `file` holding `text` unless it exists: written whole beside it, then linked into place, so
 * a server reading it never sees it empty or half written (it would take that for a torn stale claim).
 */
function createWhole(file: string, text: string): boolean {
  const temp = `${file}.${process.pid}.${threadId}.tmp`;
  fs.writeFileSync(temp, text, { mode: 0o600 });
  try {
    fs.linkSync(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/** How long a take-over may hold its lock: only a server killed in the middle of one holds it longer. */
const TAKEOVER_HELD_MS = 10_000;

/**
 * Removes the claim `stale` left at `file`, unless another server took it over meanwhile. Two servers
 * finding it at once could otherwise each remove it, one of them the other's fresh claim, and both keep
 * the queue: a take-over holds a lock (a directory, made atomically) while it checks and removes. False
 * when another server holds that lock now; a lock left by a server killed while holding it is removed.
 */
function removeStaleClaim(file: string, stale: string): boolean {
  const lock = `${file}.takeover`;
  try {
    fs.mkdirSync(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const heldSince = fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
    if (heldSince !== undefined && Date.now() - heldSince < TAKEOVER_HELD_MS) return false;
    fs.rmSync(lock, { recursive: true, force: true });
    return true;
  }
  try {
    if (readText(file) === stale) fs.rmSync(file, { force: true });
  } finally {
    fs.rmdirSync(lock);
  }
  return true;
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function readOwner(text: string | undefined): Owner | undefined {
  try {
    const checked = owner(JSON.parse(text ?? ''), '');
    return checked.ok ? checked.value : undefined;
  } catch {
    return undefined;
  }
}
