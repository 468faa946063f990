import readline from 'node:readline';
import { optionCaption } from '../model/accelerator';
import type { HumanQuestion } from './events';
import type { Answer, Interviewer } from './interviewer';

interface Referable {
  ref(): void;
  unref(): void;
}

/**
 * Lines of a stream, read by one readline interface for the stream's whole life: a fresh interface
 * per question would drop the lines the previous one had already buffered (answers piped in ahead).
 * Whenever nobody waits, the stream is paused and (a socket or pipe) unreferenced, so an idle
 * stdin does not keep the process alive after the run.
 */
class LineReader {
  private readonly buffered: string[] = [];
  private waiter: ((line: string | undefined) => void) | undefined;
  private ended = false;

  constructor(private readonly input: NodeJS.ReadableStream) {
    const rl = readline.createInterface({ input, terminal: false, crlfDelay: Infinity });
    rl.on('line', (line) => {
      const waiter = this.take();
      if (waiter) waiter(line);
      else this.buffered.push(line);
    });
    rl.on('close', () => {
      this.ended = true;
      this.take()?.(undefined);
    });
  }

  /** The next line; undefined at the end of the stream or when `signal` aborts first. */
  next(signal: AbortSignal): Promise<string | undefined> {
    const line = this.buffered.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended || signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onAbort = () => {
        if (this.waiter === deliver) this.take();
        resolve(undefined);
      };
      const deliver = (value: string | undefined) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      this.waiter = deliver;
      signal.addEventListener('abort', onAbort, { once: true });
      (this.input as Partial<Referable>).ref?.();
      this.input.resume();
    });
  }

  private take(): ((line: string | undefined) => void) | undefined {
    const waiter = this.waiter;
    this.waiter = undefined;
    if (!this.ended) {
      this.input.pause();
      (this.input as Partial<Referable>).unref?.();
    }
    return waiter;
  }
}

/** Canonical §6.4 ConsoleInterviewer: asks on a terminal, reads the answer from stdin. */
export class ConsoleInterviewer implements Interviewer {
  private reader: LineReader | undefined;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stderr,
  ) {}

  async ask(question: HumanQuestion, signal: AbortSignal): Promise<Answer> {
    const lines = [`\n[?] ${question.text}`, ...question.options.map((o) => `  ${optionCaption(o)}`)];
    if (question.freeform) lines.push('  (or type a free-text answer)');
    this.output.write(`${lines.join('\n')}\nSelect: `);
    this.reader ??= new LineReader(this.input);
    const text = await this.reader.next(signal);
    if (text === undefined) return signal.aborted ? { kind: 'timeout' } : { kind: 'skipped' };
    const trimmed = text.trim();
    if (!trimmed) return { kind: 'skipped' };
    const isOption = question.options.some((o) => o.key.toLowerCase() === trimmed.toLowerCase() || o.label === trimmed || o.to === trimmed);
    return isOption || !question.freeform ? { kind: 'option', choice: trimmed } : { kind: 'freeform', text: trimmed };
  }
}
