import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, mine, { flag: 'wx', mode: 0o600 });
      return () => {
        if (readText(file) === mine) fs.rmSync(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readOwner(file);
    if (holder && (!isThisHost(holder.host_id, holder.host) || isSameProcess(holder.pid, holder.start_time))) {
      throw new Error(`another attractor serve (pid ${holder.pid} on ${holder.host}, since ${holder.since}) keeps the queue of this logs root (${dir}): one server per logs root. Stop it; if it is gone for good, remove ${file}`);
    }
    // Its server is gone (or it was torn as that server was killed while writing it).
    fs.rmSync(file, { force: true });
  }
  throw new Error(`another attractor serve claimed the queue of this logs root (${dir}) at the same moment`);
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function readOwner(file: string): Owner | undefined {
  try {
    const checked = owner(JSON.parse(readText(file) ?? ''), '');
    return checked.ok ? checked.value : undefined;
  } catch {
    return undefined;
  }
}
