import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hostIdentity, isThisHost } from './host-identity';
import { isSameProcess, processStartTime } from './process-identity';
import { isRecord } from '../model/json';

/** One live process group a run started: its leader's pid (= the group id) and start time, and who started it where. */
interface GroupRecord {
  readonly pgid: number;
  readonly start_time?: string;
  /** The host name, for people; absent in a record from an engine before host identities (this host's). */
  readonly host?: string;
  /** `hostIdentity()` of the engine that started it: its pid means something only there. */
  readonly host_id?: string;
  /** The pid of the engine process that started it. */
  readonly engine?: number;
}

/** A record written on another host: nothing here can check or kill its group. */
export interface ForeignGroup {
  readonly pgid: number;
  readonly host: string;
  readonly file: string;
}

/**
 * The process groups a run's commands live in (tool nodes at any depth, the agent's shell, hooks),
 * one file each under `running/` in the run directory, for as long as each runs. Commands get their
 * own groups so a cancel kills their whole tree; the same makes them outlive a killed engine, and
 * these records let the next engine in the directory reap them on its own host, and wait for them
 * on another: the engine's group guard removes a record once it killed its group (group-guard.ts).
 */
export class ProcessGroupRecords {
  private made = false;
  private readonly directory: string;

  constructor(directory: string) {
    this.directory = path.resolve(directory);
  }

  /** Where the group `pgid` is recorded. */
  fileOf(pgid: number): string {
    return path.join(this.directory, String(pgid));
  }

  /** Records the group `pgid` this engine started. */
  started(pgid: number): void {
    // Known to this process first: a record the file system refuses still leaves the group killable (`killOwn`).
    startedHere(this.directory).add(pgid);
    if (!this.made) {
      fs.mkdirSync(this.directory, { recursive: true });
      this.made = true;
    }
    const startTime = processStartTime(pgid);
    const record: GroupRecord = { pgid, ...(startTime ? { start_time: startTime } : {}), host: os.hostname(), host_id: hostIdentity(), engine: process.pid };
    fs.writeFileSync(this.fileOf(pgid), `${JSON.stringify(record)}\n`);
  }

  ended(pgid: number): void {
    const groups = startedGroups.get(this.directory);
    groups?.delete(pgid);
    if (groups?.size === 0) startedGroups.delete(this.directory);
    fs.rmSync(this.fileOf(pgid), { force: true });
  }

  /**
   * Kills the groups a killed engine of this host left running and forgets their records. A group
   * is killed only if its leader is still the process recorded (same pid, same start time): a pid
   * reused since by an unrelated process is left alone. A record from another host is neither
   * killed (its pid names nothing here) nor forgotten: it is returned, for `awaitForeign`.
   */
  reapOrphans(kill: (pgid: number) => void): { readonly reaped: number[]; readonly foreign: ForeignGroup[] } {
    const reaped: number[] = [];
    const foreign: ForeignGroup[] = [];
    for (const { file, record } of this.read()) {
      if (record && !isThisHost(record.host_id, record.host)) {
        foreign.push({ pgid: record.pgid, host: record.host ?? 'another host', file });
        continue;
      }
      if (record && isSameProcess(record.pgid, record.start_time)) {
        kill(record.pgid);
        reaped.push(record.pgid);
      }
      fs.rmSync(file, { force: true });
    }
    return { reaped, foreign };
  }

  /**
   * Kills the groups this very engine process started here and has not seen end (its run lock was
   * lost), from its own memory: the file system may be what it lost.
   */
  killOwn(kill: (pgid: number) => void): number[] {
    const groups = [...startedHere(this.directory)];
    for (const pgid of groups) kill(pgid);
    return groups;
  }

  /**
   * Waits until the records of `groups` are gone — their engine's guard removes each once it killed
   * its group — or until `deadline` (epoch ms), when the lease guarantees their guard killed them even
   * if it could not say so (its host lost, or cut off from this file system); then forgets them.
   * Returns the groups that were never confirmed.
   */
  async awaitForeign(groups: readonly ForeignGroup[], deadline: number, pollMs = 100): Promise<ForeignGroup[]> {
    let waiting = groups.filter((group) => fs.existsSync(group.file));
    while (waiting.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, Math.max(0, deadline - Date.now()))));
      waiting = waiting.filter((group) => fs.existsSync(group.file));
    }
    for (const group of waiting) fs.rmSync(group.file, { force: true });
    return waiting;
  }

  private read(): { file: string; record: GroupRecord | undefined }[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.directory);
    } catch {
      return [];
    }
    return names.map((name) => {
      const file = path.join(this.directory, name);
      return { file, record: readRecord(file) };
    });
  }
}

function readRecord(file: string): GroupRecord | undefined {
  try {
    const data: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (isRecord(data) && Number.isInteger(data.pgid) && (data.pgid as number) > 1) {
      return {
        pgid: data.pgid as number,
        ...(typeof data.start_time === 'string' ? { start_time: data.start_time } : {}),
        ...(typeof data.host === 'string' ? { host: data.host } : {}),
        ...(typeof data.host_id === 'string' ? { host_id: data.host_id } : {}),
        ...(Number.isInteger(data.engine) ? { engine: data.engine as number } : {}),
      };
    }
  } catch {
    // A record torn by the kill: its group was spawned a moment before and cannot be named.
  }
  return undefined;
}

/** The groups this process started and has not seen end, by records directory. */
const startedGroups = new Map<string, Set<number>>();

function startedHere(directory: string): Set<number> {
  let groups = startedGroups.get(directory);
  if (!groups) startedGroups.set(directory, (groups = new Set()));
  return groups;
}

const current = new AsyncLocalStorage<ProcessGroupRecords>();

/** Runs a walk with every command it spawns, at any depth, recorded in `records`. */
export function recordingProcessGroups<T>(records: ProcessGroupRecords, walk: () => Promise<T>): Promise<T> {
  return current.run(records, walk);
}

/** Where the command being spawned now is recorded (none outside a run). */
export function currentProcessGroupRecords(): ProcessGroupRecords | undefined {
  return current.getStore();
}
