import fs from 'node:fs';
import readline from 'node:readline';
import { writeFileAtomicAsync } from '../engine/runtime/atomic-write';
import type { ServedEvent } from '../host/protocol/serve-api';

/** An event with its position in the run's stream: the SSE `id`, 1 for the first event. */
export class LoggedEvent {
  constructor(
    readonly id: number,
    readonly event: ServedEvent,
    private json?: string,
  ) {}

  /** The event as JSON, serialised once however many clients follow (a checkpoint carries the whole run state). */
  get data(): string {
    this.json ??= JSON.stringify(this.event);
    return this.json;
  }
}

/** Takes one event; a promise when the taker wants no more until it settles (a client reading slowly). */
type Follower = (entry: LoggedEvent) => Promise<void> | undefined;

/**
 * Every event of one run, so that a client reconnecting with `Last-Event-ID` receives exactly the
 * events it missed. Held in memory while the run goes on; once it has ended and been written to the
 * file `storeWhenClosed` names (one event's JSON a line, line N the event with id N), they are read
 * back from there: a server's memory does not grow with the runs it has finished.
 */
export class EventLog {
  private entries: LoggedEvent[] = [];
  private count = 0;
  private file: string | undefined;
  private readonly followers = new Set<Follower>();
  private readonly closeListeners = new Set<() => void>();
  /** No event is appended once closed; open streams end once ended (closed, and stored when it is to be). */
  private closed = false;
  private ended = false;
  private storing: { readonly file: string; readonly done: (error: Error | undefined) => void } | undefined;

  append(event: ServedEvent): void {
    if (this.closed) return;
    const entry = new LoggedEvent(++this.count, event);
    this.entries.push(entry);
    for (const follower of [...this.followers]) void follower(entry);
  }

  /**
   * No event follows. Open streams end once they have sent what they hold — for a log to be stored,
   * only after it is written: a client that saw the stream end finds the same events on a server
   * restarted after a crash.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const storing = this.storing;
    if (!storing) return this.end();
    void this.store(storing.file).then((error) => {
      this.end();
      storing.done(error);
    });
  }

  get size(): number {
    return this.count;
  }

  /**
   * Once closed, the log's events go to `file` (atomically) and the log lets go of them. Settles once
   * written, with the error of a write that failed (a full disk: the events stay in memory) for the
   * server to tell. (A log closed already, its streams ended, is written now.)
   */
  storeWhenClosed(file: string): Promise<Error | undefined> {
    if (this.storing || this.file !== undefined) throw new Error('an event log is stored once');
    if (this.closed) return this.store(file);
    return new Promise((done) => (this.storing = { file, done }));
  }

  private async store(file: string): Promise<Error | undefined> {
    try {
      await writeFileAtomicAsync(file, chunks(this.entries));
    } catch (error) {
      return error as Error;
    }
    this.file = file;
    this.entries = [];
    return undefined;
  }

  private end(): void {
    this.ended = true;
    for (const listener of [...this.closeListeners]) listener();
    this.closeListeners.clear();
    this.followers.clear();
  }

  /** A closed log whose events an earlier server stored in `file`, `count` of them (see `storedEvents`). */
  adopt(file: string, count: number): void {
    if (!this.ended || this.count > 0) throw new Error('only an ended, empty event log adopts a stored one');
    this.file = file;
    this.count = count;
  }

  /** Events after `lastId`, then every new one as it comes; `onClose` once the log has ended (and, stored, been read to its end). Returns the unsubscribe. */
  follow(lastId: number, follower: Follower, onClose: () => void): () => void {
    if (this.file !== undefined) return readStored(this.file, lastId, follower, onClose);
    for (const entry of this.entries.slice(Math.max(0, lastId))) void follower(entry);
    if (this.ended) {
      onClose();
      return () => undefined;
    }
    this.followers.add(follower);
    this.closeListeners.add(onClose);
    return () => {
      this.followers.delete(follower);
      this.closeListeners.delete(onClose);
    };
  }
}

/** A run's last event (`run:end`) is small: it is looked for in the file's last bytes. */
const TAIL_BYTES = 64 * 1024;

/**
 * How many events a stored log holds, and its last one (a finished run's `run:end`); undefined when
 * there is no such file or it does not end with a whole, small event.
 */
export function storedEvents(file: string): { readonly count: number; readonly last: ServedEvent } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const chunk = Buffer.alloc(Math.min(size, 1 << 20));
    let count = 0;
    for (let position = 0, read; position < size && (read = fs.readSync(fd, chunk, 0, chunk.length, position)) > 0; position += read) {
      for (let at = chunk.indexOf(0x0a); at >= 0 && at < read; at = chunk.indexOf(0x0a, at + 1)) count++;
    }
    const tail = Buffer.alloc(Math.min(size, TAIL_BYTES));
    fs.readSync(fd, tail, 0, tail.length, size - tail.length);
    const text = tail.toString('utf8');
    if (!text.endsWith('\n')) return undefined;
    const from = text.lastIndexOf('\n', text.length - 2);
    if (from < 0 && size > tail.length) return undefined;
    return { count, last: JSON.parse(text.slice(from + 1, -1)) as ServedEvent };
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** A write per chunk, not per event: each write waits for a turn of an event loop the run's other work keeps busy. */
const CHUNK_CHARS = 64 * 1024;

/** The events' lines, joined into chunks of about CHUNK_CHARS (an event longer than that is a chunk of its own). */
function* chunks(entries: readonly LoggedEvent[]): Generator<string> {
  let chunk = '';
  for (const entry of entries) {
    chunk += `${entry.data}\n`;
    if (chunk.length < CHUNK_CHARS) continue;
    yield chunk;
    chunk = '';
  }
  if (chunk) yield chunk;
}

/** A stored log's events after `lastId`, read line by line as fast as the follower takes them. */
function readStored(file: string, lastId: number, follower: Follower, onClose: () => void): () => void {
  const stop = new AbortController();
  void (async () => {
    const lines = readline.createInterface({ input: fs.createReadStream(file, { signal: stop.signal }), crlfDelay: Infinity });
    let id = 0;
    try {
      for await (const line of lines) {
        if (++id <= lastId) continue;
        await follower(new LoggedEvent(id, JSON.parse(line) as ServedEvent, line));
        if (stop.signal.aborted) return;
      }
    } catch {
      // The follower went away (the read was aborted), or the file did.
      if (stop.signal.aborted) return;
    }
    onClose();
  })();
  return () => stop.abort();
}
