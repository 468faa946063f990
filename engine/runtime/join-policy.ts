import type { GraphNode } from '../model/graph';
import { stringAttr } from '../model/attribute-readers';

/** When a fan-out is satisfied (canonical §4.8 plus the reference ledger's k_of_n and quorum). */
export type JoinPolicy =
  | { readonly kind: 'wait_all' }
  | { readonly kind: 'first_success' }
  | { readonly kind: 'k_of_n'; readonly k: number }
  /** Strictly more than `fraction` of the branches must succeed. */
  | { readonly kind: 'quorum'; readonly fraction: number };

/** How branch failures weigh on the join (reference ledger). */
export type ErrorPolicy = 'continue' | 'fail_fast' | 'ignore';

export interface ParallelConfig {
  readonly join: JoinPolicy;
  readonly errorPolicy: ErrorPolicy;
  readonly maxParallel: number;
}

export const DEFAULT_MAX_PARALLEL = 4;

/** max_parallel, on a node or as a run's default: an integer of at least 1. */
export function isMaxParallel(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}
const DEFAULT_QUORUM = 0.5;

/**
 * Reads join_policy, k, quorum, error_policy and max_parallel; a bad value is an error naming it.
 * `defaultMaxParallel` is the run's default for a fan-out that does not set max_parallel.
 */
export function readParallelConfig(node: GraphNode, defaultMaxParallel = DEFAULT_MAX_PARALLEL): { ok: true; config: ParallelConfig } | { ok: false; error: string } {
  const bad = (key: string, want: string) => ({ ok: false as const, error: `parallel node ${node.id}: ${key}="${stringAttr(node, key)}" is not ${want}` });
  const maxText = stringAttr(node, 'max_parallel');
  const maxParallel = maxText === undefined ? defaultMaxParallel : Number(maxText);
  if (!isMaxParallel(maxParallel)) return bad('max_parallel', 'an integer of at least 1');

  const errorText = stringAttr(node, 'error_policy') ?? 'continue';
  if (errorText !== 'continue' && errorText !== 'fail_fast' && errorText !== 'ignore') return bad('error_policy', 'continue, fail_fast or ignore');

  let join: JoinPolicy;
  const policy = stringAttr(node, 'join_policy') ?? 'wait_all';
  switch (policy) {
    case 'wait_all':
    case 'first_success':
      join = { kind: policy };
      break;
    case 'k_of_n': {
      const k = Number(stringAttr(node, 'k'));
      if (!Number.isInteger(k) || k < 1) return { ok: false, error: `parallel node ${node.id}: join_policy=k_of_n needs k, an integer of at least 1 (got ${stringAttr(node, 'k') ?? 'nothing'})` };
      join = { kind: 'k_of_n', k };
      break;
    }
    case 'quorum': {
      const text = stringAttr(node, 'quorum');
      const fraction = text === undefined ? DEFAULT_QUORUM : Number(text);
      if (!Number.isFinite(fraction) || fraction < 0 || fraction > 1) return bad('quorum', 'a fraction between 0 and 1');
      join = { kind: 'quorum', fraction };
      break;
    }
    default:
      return bad('join_policy', 'wait_all, first_success, k_of_n or quorum');
  }
  return { ok: true, config: { join, errorPolicy: errorText, maxParallel } };
}

export interface JoinTally {
  readonly total: number;
  readonly succeeded: number;
  readonly failed: number;
}

export type JoinDecision = { readonly kind: 'pending' } | { readonly kind: 'done'; readonly status: 'success' | 'partial_success' | 'fail'; readonly reason: string };

/** Successes a policy needs out of `total` branches. */
export function successesNeeded(join: JoinPolicy, total: number): number {
  switch (join.kind) {
    case 'wait_all':
      return total;
    case 'first_success':
      return 1;
    case 'k_of_n':
      return join.k;
    case 'quorum':
      return Math.floor(join.fraction * total) + 1;
  }
}

/**
 * The join verdict as soon as it is certain (so the rest can be cancelled), else pending. Pure and
 * deterministic over the tally, which is why a join verdict is explicit (ledger §25).
 */
export function decideJoin(join: JoinPolicy, errorPolicy: ErrorPolicy, tally: JoinTally): JoinDecision {
  const { total, succeeded, failed } = tally;
  const remaining = total - succeeded - failed;
  if (total === 0) return { kind: 'done', status: 'success', reason: 'no branches to run' };
  if (failed > 0 && errorPolicy === 'fail_fast') return { kind: 'done', status: 'fail', reason: 'a branch failed and error_policy=fail_fast' };
  if (join.kind === 'wait_all') {
    if (remaining > 0) return { kind: 'pending' };
    if (failed === 0) return { kind: 'done', status: 'success', reason: 'every branch succeeded' };
    if (errorPolicy === 'ignore') {
      return succeeded > 0 ? { kind: 'done', status: 'success', reason: `${failed} failed branch(es) ignored (error_policy=ignore)` } : { kind: 'done', status: 'fail', reason: 'every branch failed; error_policy=ignore leaves nothing to join' };
    }
    // Canonical §4.8: wait_all with failures is PARTIAL_SUCCESS; the fan-in fails if nothing succeeded.
    return { kind: 'done', status: 'partial_success', reason: `${failed} of ${total} branches failed` };
  }
  const needed = successesNeeded(join, total);
  if (succeeded >= needed) return { kind: 'done', status: 'success', reason: `${succeeded} of ${total} branches succeeded (${needed} needed)` };
  if (succeeded + remaining < needed) {
    return { kind: 'done', status: 'fail', reason: needed > total ? `${needed} successes needed but there are only ${total} branches` : `only ${succeeded + remaining} of ${total} branches can still succeed (${needed} needed)` };
  }
  return { kind: 'pending' };
}

export function describeJoin(join: JoinPolicy): string {
  switch (join.kind) {
    case 'k_of_n':
      return `k_of_n (k=${join.k})`;
    case 'quorum':
      return `quorum (> ${join.fraction})`;
    default:
      return join.kind;
  }
}
