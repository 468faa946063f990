import type { GraphNode } from '../model/graph';
import { outgoingEdges } from '../model/graph';
import type { RunContext } from '../runtime/context';
import { findFanIn } from '../runtime/fan-in-target';
import type { JoinDecision, ParallelConfig } from '../runtime/join-policy';
import { decideJoin, describeJoin, readParallelConfig } from '../runtime/join-policy';
import type { Outcome } from '../runtime/outcome';
import { isSuccessful } from '../model/stage-status';
import type { ParallelResult } from '../runtime/parallel-results';
import { PARALLEL_RESULTS_KEY, contextChanges, scoreOf } from '../runtime/parallel-results';
import type { BranchResult, Handler, HandlerServices } from './handler';

type Settlement = { readonly kind: 'finished'; readonly result: BranchResult } | { readonly kind: 'cancelled' } | { readonly kind: 'error'; readonly message: string };

/**
 * Canonical §4.8 with the reference ledger's join and error policies. Every outgoing edge starts a
 * branch on its own clone of the context (§3.8); at most max_parallel run at once; once the join
 * is decided the rest are cancelled (their processes killed) and the walk continues at the fan-in.
 */
export const parallelHandler: Handler = {
  async execute({ node, context, services, signal }) {
    const targets = [...new Set(outgoingEdges(services.graph, node.id).map((edge) => edge.to))];
    if (targets.length === 0) return { status: 'success', isExplicit: true, notes: `parallel ${node.id}: no branches to run` };
    // On a FAIL, continueAt only keeps the walk off the branch edges (see Outcome.continueAt).
    const configFailure = (failureReason: string): Outcome => ({ status: 'fail', isExplicit: false, failureReason, continueAt: node.id });
    const parsed = readParallelConfig(node, services.defaultMaxParallel);
    if (!parsed.ok) return configFailure(parsed.error);
    const fanIn = findFanIn(services.graph, targets);
    if (!fanIn) return configFailure(`parallel node ${node.id}: its branches (${targets.join(', ')}) reach no fan-in node (shape=tripleoctagon) to join at`);

    services.emit({ type: 'parallel:start', scope: services.scope, nodeId: node.id, branches: targets });
    const before = context.snapshot();
    const { settlements, decision } = await runBranches(node, targets, fanIn.stopAt, parsed.config, context, services, signal);
    if (services.signal.aborted) throw new Error('the run was cancelled');

    const results: ParallelResult[] = [];
    const ignored: string[] = [];
    let succeeded = 0;
    let failed = 0;
    for (const [index, settlement] of settlements.entries()) {
      const entry = resultEntry(targets[index] as string, settlement, before);
      if (!entry.cancelled) {
        if (isSuccessful(entry.status)) succeeded++;
        else failed++;
      }
      if (parsed.config.errorPolicy === 'ignore' && !entry.cancelled && !isSuccessful(entry.status)) ignored.push(entry.id);
      else results.push(entry);
    }
    services.emit({ type: 'parallel:end', scope: services.scope, nodeId: node.id, succeeded, failed });

    if (!decision) return { status: 'fail', isExplicit: false, failureReason: `parallel ${node.id} was stopped with ${succeeded} of ${targets.length} branches succeeded`, continueAt: fanIn.continueAt };
    const summary = `${describeJoin(parsed.config.join)} join over ${targets.length} branches: ${decision.reason}`;
    return {
      status: decision.status,
      isExplicit: true,
      notes: summary,
      ...(decision.status === 'fail' ? { failureReason: summary } : {}),
      contextUpdates: {
        [PARALLEL_RESULTS_KEY]: results,
        'parallel.success_count': succeeded,
        'parallel.fail_count': failed,
        ...(ignored.length > 0 ? { 'parallel.ignored': ignored } : {}),
      },
      continueAt: fanIn.continueAt,
    };
  },
};

type Decided = Extract<JoinDecision, { kind: 'done' }>;

/**
 * A bounded pool: launches branches until the join is decided, then cancels the rest and waits
 * for them. The verdict is the one taken when the join was decided, whatever settles after it.
 * No verdict means the node's own signal stopped the pool (its timeout, or a cancel).
 */
function runBranches(node: GraphNode, targets: readonly string[], stopAt: ReadonlySet<string>, config: ParallelConfig, context: RunContext, services: HandlerServices, signal: AbortSignal): Promise<{ settlements: Array<Settlement | undefined>; decision?: Decided }> {
  const settlements: Array<Settlement | undefined> = targets.map(() => undefined);
  const cancellers = targets.map(() => new AbortController());
  let succeeded = 0;
  let failed = 0;
  const initial = decideJoin(config.join, config.errorPolicy, { total: targets.length, succeeded, failed });
  let decision: Decided | undefined = initial.kind === 'done' ? initial : undefined;
  let next = 0;
  let active = 0;
  return new Promise((resolve) => {
    const launch = () => {
      while (!decision && !signal.aborted && active < config.maxParallel && next < targets.length) start(next++);
      if (active === 0) resolve({ settlements, ...(decision ? { decision } : {}) });
    };
    const start = (index: number) => {
      active++;
      const target = targets[index] as string;
      const canceller = cancellers[index] as AbortController;
      const began = services.clock.monotonic();
      services.emit({ type: 'parallel:branch:start', scope: services.scope, nodeId: node.id, branch: target, index });
      services
        .runBranch(target, context.clone(), stopAt, `${node.id}:${target}`, AbortSignal.any([signal, canceller.signal]))
        .then(
          (result): Settlement => ({ kind: 'finished', result }),
          (error: unknown): Settlement => (canceller.signal.aborted || signal.aborted ? { kind: 'cancelled' } : { kind: 'error', message: error instanceof Error ? error.message : String(error) }),
        )
        .then((settlement) => {
          active--;
          settlements[index] = settlement;
          const status = settlement.kind === 'finished' ? settlement.result.outcome.status : settlement.kind === 'cancelled' ? 'skipped' : 'fail';
          services.emit({ type: 'parallel:branch:end', scope: services.scope, nodeId: node.id, branch: target, index, durationMs: services.clock.monotonic() - began, status, success: isSuccessful(status) });
          if (!decision && settlement.kind !== 'cancelled') {
            const ok = settlement.kind === 'finished' && isSuccessful(settlement.result.outcome.status);
            if (ok) succeeded++;
            else failed++;
            const now = decideJoin(config.join, config.errorPolicy, { total: targets.length, succeeded, failed });
            if (now.kind === 'done') {
              decision = now;
              for (const other of cancellers) if (other !== canceller) other.abort(new Error(`cancelled: the join of ${node.id} was decided`));
            }
          }
          launch();
        });
    };
    launch();
  });
}

function resultEntry(id: string, settlement: Settlement | undefined, before: Readonly<Record<string, unknown>>): ParallelResult {
  if (!settlement || settlement.kind === 'cancelled') {
    const notes = settlement ? 'cancelled: the join was decided while this branch ran' : 'not started: the join was decided first';
    return { id, status: 'skipped', notes, failure_reason: null, preferred_label: '', context: {}, cancelled: true };
  }
  if (settlement.kind === 'error') return { id, status: 'fail', notes: '', failure_reason: `branch error: ${settlement.message}`, preferred_label: '', context: {} };
  const { outcome } = settlement.result;
  const changes = contextChanges(before, settlement.result.context.snapshot());
  const score = scoreOf(changes);
  return {
    id,
    status: outcome.status,
    notes: outcome.notes ?? '',
    failure_reason: outcome.failureReason ?? null,
    preferred_label: outcome.preferredLabel ?? '',
    ...(score !== undefined ? { score } : {}),
    context: changes,
  };
}
