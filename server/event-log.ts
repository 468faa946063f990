import type { ServedEvent } from '../host/protocol/serve-api';

/** An event with its position in the run's stream: the SSE `id`, 1 for the first event. */
export class LoggedEvent {
  private json: string | undefined;

  constructor(
    readonly id: number,
    readonly event: ServedEvent,
  ) {}

  /** The event as JSON, serialised once however many clients follow (a checkpoint carries the whole run state). */
  get data(): string {
    this.json ??= JSON.stringify(this.event);
    return this.json;
  }
}

type Follower = (entry: LoggedEvent) => void;

/**
 * Every event of one run, kept for the server's lifetime so that a client reconnecting with
 * `Last-Event-ID` receives exactly the events it missed.
 */
export class EventLog {
  private readonly entries: LoggedEvent[] = [];
  private readonly followers = new Set<Follower>();
  private readonly closeListeners = new Set<() => void>();
  private closed = false;

  append(event: ServedEvent): void {
    if (this.closed) return;
    const entry = new LoggedEvent(this.entries.length + 1, event);
    this.entries.push(entry);
    for (const follower of [...this.followers]) follower(entry);
  }

  /** No event follows; open streams end once they have sent what they hold. */
  close(): void {
    this.closed = true;
    for (const listener of [...this.closeListeners]) listener();
    this.closeListeners.clear();
    this.followers.clear();
  }

  get size(): number {
    return this.entries.length;
  }

  /** Events after `lastId`, then every new one as it comes; `onClose` once the log is closed. Returns the unsubscribe. */
  follow(lastId: number, follower: Follower, onClose: () => void): () => void {
    for (const entry of this.entries.slice(Math.max(0, lastId))) follower(entry);
    if (this.closed) {
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
