import type { Graph, GraphNode } from '../model/graph';
import { formatDuration } from '../model/duration';
import type { Usage } from './backend';
import type { MustWriteCheck } from './must-write';
import { boolAttr, maxRetries, stringAttr } from '../model/attribute-readers';
import type { Outcome } from './outcome';
import { isSuccessful } from '../model/stage-status';
import { maxRetryAfterMs } from './retry-policy';
import { addUsage } from './usage';

/** What one attempt of a node came back with, as the runner saw it: the input the ladder decides on. */
export type AttemptResult =
  | { readonly kind: 'outcome'; readonly outcome: Outcome }
  /** The handler threw: a provider's error (transient or not), or any other error (never transient). */
  | { readonly kind: 'error'; readonly message: string; readonly transient: boolean; readonly retryAfterMs?: number; readonly usage?: Usage }
  /** The node's timeout expired before the handler settled (a handler that ended on its own timeout keeps its result). */
  | { readonly kind: 'timed-out'; readonly afterMs: number; readonly continueAt?: string }
  /** A controller stopped the attempt (the debugger cancelling a long LLM call). */
  | { readonly kind: 'stopped'; readonly reason: string }
  /** max_pipeline_duration ran out before or during the attempt: the node is stopped and the run fails. */
  | { readonly kind: 'deadline' };

/** Where a node's retry ladder stands: the attempt running now and what the attempts so far consumed. */
export interface LadderRung {
  readonly attempt: number;
  readonly usage?: Usage;
}

/** Why the ladder needs the must_write artifact checked before it can decide. */
export type PendingCheck =
  /** A successful attempt, accepted once its artifact is fresh. */
  | { readonly purpose: 'accept'; readonly rung: LadderRung; readonly outcome: Outcome }
  /** The last RETRY softened to PARTIAL_SUCCESS by allow_partial, never over a missing artifact. */
  | { readonly purpose: 'partial'; readonly rung: LadderRung; readonly outcome: Outcome }
  /** An outcome that never entered the ladder (an auto_status promotion) meets the contract too, from any time. */
  | { readonly purpose: 'backstop'; readonly outcome: Outcome };

/** What the ladder decided after an attempt (or after the artifact check it asked for). */
export type LadderDecision =
  | { readonly kind: 'done'; readonly outcome: Outcome }
  | { readonly kind: 'retry'; readonly rung: LadderRung; readonly reason: string; readonly retryAfterMs?: number }
  | { readonly kind: 'check'; readonly pending: PendingCheck };

/** A node that missed its must_write artifact contract. */
function mustWriteFailure(message: string): Outcome {
  return { status: 'fail', isExplicit: false, failureReason: message, failureKind: 'must_write_violated' };
}

/** What a timeout or a controller's stop means for the attempt, as an outcome the ladder weighs. */
function attemptOutcome(node: GraphNode, result: Extract<AttemptResult, { kind: 'outcome' | 'timed-out' | 'stopped' }>): Outcome {
  switch (result.kind) {
    case 'outcome':
      return result.outcome;
    case 'stopped':
      // A plain FAIL, never retried.
      return { status: 'fail', isExplicit: false, failureReason: `cancelled: ${result.reason}` };
    case 'timed-out': {
      // Ledger: a timeout fails the node, or yields PARTIAL_SUCCESS with allow_partial.
      const continueAt = result.continueAt !== undefined ? { continueAt: result.continueAt } : {};
      if (boolAttr(node, 'allow_partial')) return { status: 'partial_success', isExplicit: false, notes: `timed out after ${result.afterMs} ms; partial accepted (allow_partial)`, ...continueAt };
      return { status: 'fail', isExplicit: false, failureReason: `timed out after ${result.afterMs} ms`, ...continueAt };
    }
  }
}

/**
 * The retry ladder (canonical §3.5 with the ledger): RETRY outcomes, transient provider errors
 * and must_write violations consume attempts; a plain FAIL returns at once; exhaustion of RETRY
 * yields PARTIAL_SUCCESS only with allow_partial, and never over a missing artifact.
 */
export function afterAttempt(node: GraphNode, graph: Graph, rung: LadderRung, result: Exclude<AttemptResult, { kind: 'deadline' }>): LadderDecision {
  const spent = result.kind === 'outcome' ? result.outcome.usage : result.kind === 'error' ? result.usage : undefined;
  const now: LadderRung = { attempt: rung.attempt, ...(spent || rung.usage ? { usage: rung.usage && spent ? addUsage(rung.usage, spent) : (spent ?? rung.usage) } : {}) };
  const finalAttempt = now.attempt >= maxRetries(node, graph) + 1;
  const mustWrite = stringAttr(node, 'must_write') !== undefined;
  if (result.kind === 'error') {
    if (!result.transient || finalAttempt) return done(now, { status: 'fail', isExplicit: false, failureReason: result.message });
    if (result.retryAfterMs === undefined) return { kind: 'retry', rung: now, reason: result.message };
    // A server asking for more than the cap is not waited out in full, and the event says so.
    const capped = result.retryAfterMs > maxRetryAfterMs ? ` (Retry-After ${formatDuration(result.retryAfterMs)} capped at ${formatDuration(maxRetryAfterMs)})` : '';
    return { kind: 'retry', rung: now, reason: result.message + capped, retryAfterMs: Math.min(result.retryAfterMs, maxRetryAfterMs) };
  }
  const outcome = attemptOutcome(node, result);
  if (outcome.status === 'fail' || outcome.status === 'skipped') return done(now, outcome);
  if (isSuccessful(outcome.status)) return mustWrite ? { kind: 'check', pending: { purpose: 'accept', rung: now, outcome } } : done(now, outcome);
  // RETRY
  if (!finalAttempt) return { kind: 'retry', rung: now, reason: outcome.failureReason ?? 'the node asked to be retried' };
  if (!boolAttr(node, 'allow_partial')) {
    return done(now, { ...outcome, status: 'fail', isExplicit: false, failureReason: `max retries exceeded after ${now.attempt} attempts${outcome.failureReason ? `: ${outcome.failureReason}` : ''}` });
  }
  return mustWrite ? { kind: 'check', pending: { purpose: 'partial', rung: now, outcome } } : done(now, partial(outcome, now));
}

/** The ladder's decision once the artifact check it asked for came back. */
export function afterCheck(node: GraphNode, graph: Graph, pending: Exclude<PendingCheck, { purpose: 'backstop' }>, check: MustWriteCheck): LadderDecision {
  const { rung, outcome } = pending;
  if (pending.purpose === 'partial') return done(rung, check.ok ? partial(outcome, rung) : mustWriteFailure(check.message));
  if (check.ok) return done(rung, outcome);
  if (rung.attempt >= maxRetries(node, graph) + 1) return done(rung, mustWriteFailure(check.message));
  return { kind: 'retry', rung, reason: check.message };
}

function done(rung: LadderRung, outcome: Outcome): LadderDecision {
  return { kind: 'done', outcome: { ...outcome, attemptCount: rung.attempt, ...(rung.usage ? { usage: rung.usage } : {}) } };
}

function partial(outcome: Outcome, rung: LadderRung): Outcome {
  return { ...outcome, status: 'partial_success', isExplicit: false, notes: `retries exhausted after ${rung.attempt} attempts; partial accepted (allow_partial)` };
}

/**
 * auto_status, then continue_on_fail, then the must_write backstop, in that order (ledger). The
 * backstop needs the artifact checked: then the check comes back as `pending` with the outcome so far.
 */
export function applyOverrides(node: GraphNode, outcome: Outcome): { readonly outcome: Outcome } | { readonly pending: PendingCheck } {
  let result = outcome;
  if ((result.status === 'skipped' || result.statusMissing) && boolAttr(node, 'auto_status')) {
    const { failureReason: _none, failedStep: _step, ...rest } = result;
    result = { ...rest, status: 'success', isExplicit: false, notes: 'auto-status: handler completed without writing status' };
  }
  if (result.status === 'fail' && boolAttr(node, 'continue_on_fail')) {
    result = { ...result, status: 'partial_success', isExplicit: false, notes: `continue_on_fail: ${result.failureReason ?? 'failed'}` };
  }
  const mustWrite = stringAttr(node, 'must_write');
  // Only an outcome that skipped the ladder reaches the backstop, and it was no FAIL.
  if (mustWrite && result.status !== 'fail' && result.status !== 'skipped' && result.attemptCount === undefined) return { pending: { purpose: 'backstop', outcome: result } };
  if (mustWrite && outcome.status === 'fail' && result.status !== 'fail') {
    result = mustWriteFailure(`must_write node ${node.id} failed; continue_on_fail cannot override the artifact contract: ${outcome.failureReason ?? ''}`);
  }
  return { outcome: result };
}

/** The backstop's verdict on an outcome that skipped the ladder. */
export function afterBackstop(outcome: Outcome, check: MustWriteCheck): Outcome {
  return check.ok ? outcome : mustWriteFailure(check.message);
}
