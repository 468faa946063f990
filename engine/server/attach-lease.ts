/** How an attached debugger's lease stands, as `GET /pipelines/{id}` reports it. */
export interface AttachLeaseState {
  /** A debugger that sends nothing for this long has gone: its breakpoints are dropped and the run let go. */
  readonly periodMs: number;
  /** When the lease lapses unless renewed; null when no debugger has renewed it since it last lapsed. */
  readonly expiresAt: string | null;
}

/**
 * The lease of the debugger attached to one served run: every debugger request renews it, and a
 * debugger that stops renewing (killed, or its network gone) loses it after `periodMs`.
 */
export class AttachLease {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private expiry: Date | undefined;

  constructor(
    readonly periodMs: number,
    private readonly lapsed: () => void,
  ) {}

  renew(): void {
    clearTimeout(this.timer);
    this.expiry = new Date(Date.now() + this.periodMs);
    this.timer = setTimeout(() => {
      this.end();
      this.lapsed();
    }, this.periodMs);
    // A lease never keeps the process alive.
    this.timer.unref();
  }

  /** The run is over: nothing is left to let go. */
  end(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.expiry = undefined;
  }

  get state(): AttachLeaseState {
    return { periodMs: this.periodMs, expiresAt: this.expiry?.toISOString() ?? null };
  }
}
