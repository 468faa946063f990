import { ServeRequestError } from '../host/serve/serve-client';

/**
 * Keeps an attached debugger's lease on the server: renews it every third of its period, so one
 * lost renewal never lets the run go. A debugger killed outright stops renewing, and the server
 * lets the run go when the lease lapses.
 */
export class LeaseHeartbeat {
  private timer: ReturnType<typeof setInterval> | undefined;
  private failing = false;

  constructor(
    private readonly renew: () => Promise<unknown>,
    private readonly warning: (message: string) => void,
  ) {}

  /** `periodMs` undefined: the server keeps no lease (it predates them), so there is nothing to renew. */
  start(periodMs: number | undefined): void {
    if (periodMs === undefined || this.timer) return;
    this.timer = setInterval(() => void this.beat(), periodMs / 3);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async beat(): Promise<void> {
    try {
      await this.renew();
      if (this.failing) this.warning('the server has the lease renewed again');
      this.failing = false;
    } catch (error) {
      // A run that just finished has no lease left to keep; the attachment ends with it.
      if (error instanceof ServeRequestError && error.status === 409) return;
      if (!this.failing) this.warning(`renewing the lease on the server failed (${error instanceof Error ? error.message : String(error)}); if it stays unrenewed the server drops the breakpoints and lets the run go`);
      this.failing = true;
    }
  }
}
