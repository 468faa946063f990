import { HttpError } from '../host/protocol/serve-api';

interface Waiting {
  readonly key: object;
  /** A submission: counted against the queue's capacity. */
  readonly bounded: boolean;
  /** Takes the slot: the run counts as holding one as soon as this returns. */
  readonly go: () => void;
}

/**
 * `--max-runs` worker slots and the runs waiting for one, first come first served: submissions not
 * started yet, and runs whose gate was answered while every slot was taken. Which runs hold a slot is
 * counted afresh each time (`held`): a run waiting at a human gate holds none.
 */
export class SlotQueue {
  private readonly waiting: Waiting[] = [];

  constructor(
    private readonly slots: number,
    /** Submissions that may wait at once; one more is refused (503). */
    private readonly capacity: number,
    private readonly held: () => number,
  ) {}

  /** Whether one more run may take a slot now: one is free and no run waits before it. */
  hasRoom(): boolean {
    return this.waiting.length === 0 && this.held() < this.slots;
  }

  /**
   * Puts `key` in line; `go` is called when its turn comes. A submission (`bounded`) is refused with 503
   * and Retry-After once `capacity` of them wait; a run going on after its gate is always taken.
   * Returns its place (1: next).
   */
  enqueue(key: object, go: () => void, bounded: boolean): number {
    const submissions = this.waiting.filter((entry) => entry.bounded).length;
    if (bounded && submissions >= this.capacity) {
      throw new HttpError(503, `this server runs ${this.slots} pipeline(s) at once (--max-runs) and ${submissions} submission(s) wait for a slot, its limit (--max-queued); try again later`);
    }
    this.waiting.push({ key, bounded, go });
    return this.waiting.length;
  }

  /** Puts back in line a submission an earlier server had admitted, whatever the capacity is now: it was queued, it stays queued. */
  readmit(key: object, go: () => void): void {
    this.waiting.push({ key, bounded: true, go });
  }

  /** Where `key` waits (1: next), or undefined when it does not. */
  position(key: object): number | undefined {
    const index = this.waiting.findIndex((entry) => entry.key === key);
    return index < 0 ? undefined : index + 1;
  }

  /** `key` waits no more (cancelled); false when it was not waiting. */
  remove(key: object): boolean {
    const index = this.waiting.findIndex((entry) => entry.key === key);
    if (index < 0) return false;
    this.waiting.splice(index, 1);
    return true;
  }

  /** Lets the runs at the head go while slots are free. */
  pump(): void {
    while (this.waiting.length > 0 && this.held() < this.slots) this.waiting.shift()?.go();
  }
}
