import fs from 'node:fs';
import path from 'node:path';
import type { RunEvent } from '../runtime/events';

/** In a run on Restate, the run's events as one engine would have emitted them, one JSON line each. */
export const RUN_EVENTS_FILE = 'events.jsonl';

/** What one durable step is: the run's first, one that continues it, or one that takes a gate's answer. */
export interface StepKind {
  /** The run already has a checkpoint: the step resumes it, and its start-up events are not the run's. */
  readonly continuation: boolean;
  /** The step runs a gate with its answer: the question was recorded when the gate opened. */
  readonly answered: boolean;
}

/**
 * Appends the events of one durable step to the run's events file, so that the file reads as the
 * event stream of a run walked by one engine: a continuation's `phase` and `run:start` events (each
 * step resumes the run) and an answered gate's second `human:question` are left out. The file is a
 * view of the run, not a commit point: it is appended without fsync.
 */
export class StepEventsWriter {
  private readonly file: string;
  private started = false;

  constructor(
    logsRoot: string,
    private readonly step: StepKind,
  ) {
    this.file = path.join(logsRoot, RUN_EVENTS_FILE);
  }

  readonly record = (event: RunEvent): void => {
    if (this.step.continuation && (event.type === 'phase' || event.type === 'run:start')) return;
    if (this.step.answered && event.type === 'human:question') return;
    if (!this.started) {
      this.started = true;
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      // A worker killed in the middle of a line left it unfinished: the next line starts on its own.
      if (!endsWithNewline(this.file)) fs.appendFileSync(this.file, '\n');
    }
    fs.appendFileSync(this.file, `${JSON.stringify(event)}\n`);
  };
}

function endsWithNewline(file: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return true;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    fs.closeSync(fd);
  }
}
