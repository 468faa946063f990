import fs from 'node:fs';
import type { RunEvent } from '../../engine/runtime/events';
import { runFile } from '../../engine/runtime/run-layout';

/**
 * Follows a run's events file (written by the workers' steps) as it grows: each `read` returns the
 * events of the lines completed since the last one. A line that is not JSON (a worker killed while
 * writing it) becomes a warning event, so that the follower still sees every other event.
 */
export class RunEventsTail {
  readonly file: string;
  private offset = 0;
  private pending = Buffer.alloc(0);
  private lineNumber = 0;

  constructor(logsRoot: string) {
    this.file = runFile(logsRoot, 'events');
  }

  read(): RunEvent[] {
    const chunk = this.readNewBytes();
    if (chunk.length === 0) return [];
    this.pending = Buffer.concat([this.pending, chunk]);
    const end = this.pending.lastIndexOf(0x0a);
    if (end < 0) return [];
    const lines = this.pending.subarray(0, end).toString('utf8').split('\n');
    this.pending = this.pending.subarray(end + 1);
    const events: RunEvent[] = [];
    for (const line of lines) {
      this.lineNumber++;
      if (line === '') continue;
      try {
        events.push(JSON.parse(line) as RunEvent);
      } catch {
        events.push({ type: 'warning', message: `line ${this.lineNumber} of ${this.file} is not an event (a worker stopped while writing it); skipped` });
      }
    }
    return events;
  }

  private readNewBytes(): Buffer {
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch {
      // Not written yet: the run's first step has not started.
      return Buffer.alloc(0);
    }
    try {
      const length = fs.fstatSync(fd).size - this.offset;
      if (length <= 0) return Buffer.alloc(0);
      const chunk = Buffer.alloc(length);
      const read = fs.readSync(fd, chunk, 0, length, this.offset);
      this.offset += read;
      return chunk.subarray(0, read);
    } finally {
      fs.closeSync(fd);
    }
  }
}
