import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import { isSameProcess, processStartTime } from './process-identity';
import { isRecord } from '../model/json';

/** One live process group a run started: its leader's pid (= the group id) and start time. */
interface GroupRecord {
  readonly pgid: number;
  readonly start_time?: string;
}

/**
 * The process groups a run's commands live in (tool nodes at any depth, the agent's shell, hooks),
 * one file each under `running/` in the run directory, for as long as each runs. Commands get their
 * own groups so a cancel kills their whole tree; the same makes them outlive a killed engine, and
 * these records let the next engine in the directory reap them.
 */
export class ProcessGroupRecords {
  private made = false;

  constructor(private readonly directory: string) {}

  started(pgid: number): void {
    if (!this.made) {
      fs.mkdirSync(this.directory, { recursive: true });
      this.made = true;
    }
    const startTime = processStartTime(pgid);
    const record: GroupRecord = { pgid, ...(startTime ? { start_time: startTime } : {}) };
    fs.writeFileSync(path.join(this.directory, String(pgid)), `${JSON.stringify(record)}\n`);
  }

  ended(pgid: number): void {
    fs.rmSync(path.join(this.directory, String(pgid)), { force: true });
  }

  /**
   * Kills the groups a killed engine left running, and forgets every record. A group is killed only
   * if its leader is still the process recorded (same pid, same start time): a pid reused since by
   * an unrelated process is left alone.
   */
  reapOrphans(kill: (pgid: number) => void): number[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.directory);
    } catch {
      return [];
    }
    const reaped: number[] = [];
    for (const name of names) {
      const file = path.join(this.directory, name);
      const record = readRecord(file);
      if (record && isSameProcess(record.pgid, record.start_time)) {
        kill(record.pgid);
        reaped.push(record.pgid);
      }
      fs.rmSync(file, { force: true });
    }
    return reaped;
  }
}

function readRecord(file: string): GroupRecord | undefined {
  try {
    const data: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (isRecord(data) && Number.isInteger(data.pgid) && (data.pgid as number) > 1) {
      return { pgid: data.pgid as number, ...(typeof data.start_time === 'string' ? { start_time: data.start_time } : {}) };
    }
  } catch {
    // A record torn by the kill: its group was spawned a moment before and cannot be named.
  }
  return undefined;
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
