import { formatBytes } from '../model/bytes';

export type OutputStream = 'stdout' | 'stderr';

/** What one command may show live per stream (the Debug Console, the graph view); the capture keeps more. */
const LIVE_OUTPUT_BYTES_PER_STREAM = 1024 * 1024;

/**
 * Live output of one command, bounded: the first `budget` bytes of each stream pass through to
 * `show`; the rest is counted and summarised once, when the command ends. A tool printing a
 * gigabyte must not become a gigabyte of events for every listener.
 */
export class LiveOutput {
  private readonly shown: Record<OutputStream, number> = { stdout: 0, stderr: 0 };
  private readonly withheld: Record<OutputStream, number> = { stdout: 0, stderr: 0 };

  constructor(
    private readonly show: (stream: OutputStream, text: string) => void,
    private readonly budget = LIVE_OUTPUT_BYTES_PER_STREAM,
  ) {}

  push(stream: OutputStream, chunk: Buffer): void {
    const room = this.budget - this.shown[stream];
    const passed = room > 0 ? chunk.subarray(0, room) : chunk.subarray(0, 0);
    if (passed.length > 0) {
      this.shown[stream] += passed.length;
      this.show(stream, passed.toString('utf8'));
    }
    this.withheld[stream] += chunk.length - passed.length;
  }

  /** One line per stream that went over its budget, naming where the captured output is. */
  finish(captureNote: (stream: OutputStream) => string): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      const withheld = this.withheld[stream];
      if (withheld > 0) this.show(stream, `\n[${stream}: ${formatBytes(withheld)} more not shown live (limit ${formatBytes(this.budget)}); ${captureNote(stream)}]\n`);
    }
  }
}
