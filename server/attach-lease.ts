import type { AttachLeaseState } from '../host/protocol/serve-api';

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
