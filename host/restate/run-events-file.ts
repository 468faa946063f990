import fs from 'node:fs';
import path from 'node:path';
import type { RunEvent } from '../../engine/runtime/events';
import { runFile } from '../../engine/runtime/run-layout';

/**
 * Appends the events of one durable step to the run's events file, so that the file reads as the
 * event stream of a run walked by one engine: a continuation's `phase` and `run:start` events (each
 * step resumes the run) are left out, and so are the engine's `human:question`s: the step appends each
 * question it asks Restate for itself, with the durable promise's id, once. After `close` (the step
 * stopped its walk at a gate inside a branch) nothing more of this attempt is recorded. The file is a
 * view of the run, not a commit point: it is appended without fsync.
 */
export class StepEventsWriter {
  private readonly file: string;
  private started = false;
  private closed = false;

  /** `continuation`: the run already has a checkpoint, and this step resumes it. */
  constructor(
    logsRoot: string,
    private readonly continuation: boolean,
  ) {
    this.file = runFile(logsRoot, 'events');
  }

  readonly record = (event: RunEvent): void => {
    if (this.closed || event.type === 'human:question' || (this.continuation && (event.type === 'phase' || event.type === 'run:start'))) return;
    this.append(event);
  };

  close(): void {
    this.closed = true;
  }

  /**
   * Appends the step's own gate question, once: a step retried after it wrote the question (its worker
   * died before Restate journaled the step) asks the same durable promise, under the same id.
   */
  appendQuestion(event: Extract<RunEvent, { type: 'human:question' }>): void {
    if (!this.asked(event.question.id)) this.append(event);
  }

  /** Appends `event` whatever the filters say. */
  private append(event: RunEvent): void {
    if (!this.started) {
      this.started = true;
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      // A worker killed in the middle of a line left it unfinished: the next line starts on its own.
      if (!endsWithNewline(this.file)) fs.appendFileSync(this.file, '\n');
    }
    fs.appendFileSync(this.file, `${JSON.stringify(event)}\n`);
  }

  private asked(questionId: string): boolean {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch {
      return false;
    }
    const id = JSON.stringify(questionId);
    return text.split('\n').some((line) => line.includes(id) && line.startsWith('{"type":"human:question"') && (JSON.parse(line) as { question?: { id?: string } }).question?.id === questionId);
  }
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
