import { canonicalJson } from './canonical-json';

const breakerThreshold = 3;

/**
 * Counts tool failures identical in tool, arguments and error text. Legitimate repetition (polling,
 * retrying with changed arguments, a different error) never adds up; only a true loop trips it.
 */
export class FailureBreaker {
  private readonly counts = new Map<string, number>();

  /** Records a failure; returns the error text to show the model (verbatim, plus a note once tripped). */
  recordFailure(tool: string, args: unknown, error: string): { readonly text: string; readonly count: number; readonly tripped: boolean } {
    const key = `${tool}\u0000${canonicalJson(args)}\u0000${error}`;
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    if (count < breakerThreshold) return { text: error, count, tripped: false };
    const note = `[circuit breaker] This exact ${tool} call has now failed ${count} times with the same error. Repeating it will not help: change the arguments or take a different approach.`;
    return { text: `${error}\n\n${note}`, count, tripped: true };
  }
}
