import type { Handler, HandlerInput } from '../handlers/handler';
import { ProviderError } from './backend';
import { isSuccessful } from '../model/stage-status';
import type { AttemptResult } from './retry-ladder';
import { isDiskFull } from './disk-full';

/** One attempt of a node's handler, with what bounds it. */
export interface AttemptRun {
  readonly handler: Handler;
  readonly input: Omit<HandlerInput, 'signal'>;
  /** The run's signal: its cancel is no result of the node (`throwIfCancelled` ends the walk instead). */
  readonly runSignal: AbortSignal;
  /** A controller stopping this attempt (cancelNode). */
  readonly nodeSignal: AbortSignal;
  readonly throwIfCancelled: () => void;
  /** The node's timeout. */
  readonly timeoutMs?: number;
  /** What is left of max_pipeline_duration, when the run has one; the abort reason once it runs out. */
  readonly budget?: { readonly remainingMs: number; readonly exceeded: () => Error };
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs the attempt and says how it ended: the handler's outcome, its error (a provider's transient
 * one is retried by the ladder), the node's timeout, a controller's stop, or the run's deadline.
 */
export async function runAttempt(run: AttemptRun): Promise<AttemptResult> {
  const { budget, nodeSignal, timeoutMs: timeout } = run;
  if (budget && budget.remainingMs <= 0) return { kind: 'deadline' };
  // A referenced timer, unlike AbortSignal.timeout's: a node waiting on nothing but its timeout
  // (a human gate with a default choice) must keep the process alive until it fires.
  const expiry = timeout !== undefined ? new AbortController() : undefined;
  const expiryTimer = expiry ? setTimeout(() => expiry.abort(new DOMException(`timed out after ${timeout} ms`, 'TimeoutError')), timeout) : undefined;
  const timer = expiry?.signal;
  const deadline = budget ? new AbortController() : undefined;
  // setTimeout fires at once past 2^31-1 ms; a budget that long simply never interrupts a node.
  const deadlineTimer = deadline && budget && budget.remainingMs < MAX_TIMER_MS ? setTimeout(() => deadline.abort(budget.exceeded()), budget.remainingMs) : undefined;
  const signal = AbortSignal.any([run.runSignal, nodeSignal, ...(timer ? [timer] : []), ...(deadline ? [deadline.signal] : [])]);
  const stopped = (): AttemptResult => ({ kind: 'stopped', reason: nodeSignal.reason instanceof Error ? nodeSignal.reason.message : 'cancelled' });
  try {
    const outcome = await run.handler.execute({ ...run.input, signal });
    // A handler interrupted by a cancel returns whatever it had (an aborted tool's FAIL, a gate's
    // default choice); that is not the node's result, so it is never recorded or routed on.
    run.throwIfCancelled();
    if (deadline?.signal.aborted) return { kind: 'deadline' };
    if (nodeSignal.aborted) return stopped();
    // A handler that dealt with its own timeout (a human gate's default choice) keeps its result.
    if (timer?.aborted && !run.runSignal.aborted && !isSuccessful(outcome.status)) {
      return { kind: 'timed-out', afterMs: timeout ?? 0, ...(outcome.continueAt !== undefined ? { continueAt: outcome.continueAt } : {}) };
    }
    return { kind: 'outcome', outcome };
  } catch (error) {
    run.throwIfCancelled();
    if (deadline?.signal.aborted) return { kind: 'deadline' };
    if (nodeSignal.aborted) return stopped();
    if (timer?.aborted) return { kind: 'timed-out', afterMs: timeout ?? 0 };
    if (error instanceof ProviderError) {
      return {
        kind: 'error',
        message: error.message,
        transient: error.transient,
        ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
        ...(error.usage ? { usage: error.usage } : {}),
      };
    }
    // Not the node's failure: the run stops where it last committed, resumable once there is room.
    if (isDiskFull(error)) throw error;
    return { kind: 'error', message: `handler error: ${error instanceof Error ? error.message : String(error)}`, transient: false };
  } finally {
    clearTimeout(expiryTimer);
    clearTimeout(deadlineTimer);
  }
}
