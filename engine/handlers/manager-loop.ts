import { evaluateCondition } from '../conditions/condition';
import { childContextSeed } from '../model/child-context';
import type { Graph, GraphNode } from '../model/graph';
import { isExitNode, resolveHandlerType } from '../model/handler-types';
import { ChildTelemetry } from '../runtime/child-telemetry';
import type { RunContext } from '../runtime/context';
import type { RunEvent } from '../runtime/events';
import type { ManagerChild, ManagerConfig } from '../runtime/manager-config';
import { readManagerConfig } from '../runtime/manager-config';
import type { Outcome } from '../runtime/outcome';
import { isSuccessful } from '../model/stage-status';
import type { HandlerServices } from './handler';
import type { Handler } from './handler';

const HANDLER_TYPE = 'stack.manager_loop';

/**
 * Canonical §4.11 as the reference runs it: each cycle is a sprint that runs the child to
 * completion on a fresh clone of the context (the steering message of the previous cycle in
 * `manager.steering`), then the manager observes its outcome and decides: the stop condition (or,
 * without one, the child's success) ends the loop with the child's status, else it waits and runs
 * another sprint, until `manager.max_cycles` run out.
 */
export const managerLoopHandler: Handler = {
  async execute({ node, context, services, signal }) {
    const parsed = readManagerConfig(node, services.graph, services.cwd);
    if (!parsed.ok) return { status: 'fail', isExplicit: false, failureReason: parsed.error };
    return supervise(node, parsed.config, context, services, signal);
  },
};

async function supervise(node: GraphNode, config: ManagerConfig, context: RunContext, services: HandlerServices, signal: AbortSignal): Promise<Outcome> {
  const observed: Record<string, unknown> = {};
  const lookup = (key: string) => (key in observed ? observed[key] : context.get(key));
  let steers = 0;
  let last: Sprint | undefined;
  // The sprint's own context updates stay in its child context, as the reference keeps them.
  const finish = (cycle: number, outcome: Outcome): Outcome => ({
    ...outcome,
    cycleIndex: cycle - 1,
    contextUpdates: { ...observed, last_stage: node.id, 'manager.cycles': cycle, 'stack.manager.cycles': cycle, 'stack.manager.steers': steers },
  });

  for (let cycle = 1; cycle <= config.maxCycles; cycle++) {
    if (config.child) {
      const steering = config.actions.has('steer') && last ? steeringMessage(cycle - 1, config.maxCycles, last) : undefined;
      if (steering) steers++;
      last = await runSprint(node, config.child, childContext(node, context, steering), cycle, services, signal);
      // A node cancelled or timed out while its child ran ends here; the walker reports why.
      signal.throwIfAborted();
      // A child that cannot be loaded never will be: a configuration failure, as the reference's.
      if (last.unloadable) return finish(cycle, { status: 'fail', isExplicit: false, failureReason: last.failureReason ?? 'the child pipeline cannot be loaded' });
      Object.assign(observed, last.telemetry, {
        [`manager.cycle_${cycle}.status`]: last.status,
        'manager.last_child_status': last.status,
        'manager.cycles_completed': cycle,
      });
    }
    if (config.stopCondition) {
      if (evaluateCondition(config.stopCondition, { status: last?.status ?? '', ...(last?.preferredLabel ? { preferredLabel: last.preferredLabel } : {}), lookup })) {
        return finish(cycle, { status: last?.status ?? 'success', isExplicit: last?.isExplicit ?? true, notes: `manager completed in ${cycle} cycle(s): stop condition satisfied (${config.stopCondition.text})`, ...failureOf(last) });
      }
    } else if (last && isSuccessful(last.status)) {
      return finish(cycle, { status: last.status, isExplicit: last.isExplicit, notes: `manager completed in ${cycle} cycle(s): the child succeeded` });
    }
    if (config.actions.has('wait') && cycle < config.maxCycles && config.pollIntervalMs > 0) await services.clock.sleep(config.pollIntervalMs, signal);
  }
  return finish(config.maxCycles, {
    status: 'fail',
    isExplicit: false,
    failureReason: `manager exhausted ${config.maxCycles} cycle(s)${last ? `; the last child run ended ${last.status}${last.failureReason ? `: ${last.failureReason}` : ''}` : ' without its stop condition holding'}`,
  });
}

function failureOf(outcome: Outcome | undefined): Pick<Outcome, 'failureReason'> {
  return outcome?.failureReason && !isSuccessful(outcome.status) ? { failureReason: outcome.failureReason } : {};
}

/** A sprint's child context: a clone without the parent's routing verdict, plus the node's `context.*` attributes and the steering. */
function childContext(node: GraphNode, context: RunContext, steering: string | undefined): RunContext {
  const child = context.clone();
  child.delete('preferred_label');
  child.apply(childContextSeed(node, HANDLER_TYPE));
  if (steering) child.set('manager.steering', steering);
  return child;
}

/** The reference's structured steering: what the previous sprint ended with and how many are left. */
function steeringMessage(previousCycle: number, maxCycles: number, outcome: Outcome): string {
  return [
    `[Manager Steering — Cycle ${previousCycle} of ${maxCycles}]`,
    `Status: ${outcome.status}`,
    ...(outcome.failureReason ? [`Failure reason: ${outcome.failureReason}`] : []),
    ...(outcome.notes ? [`Notes: ${outcome.notes}`] : []),
    `Cycles remaining: ${maxCycles - previousCycle}`,
    'Adjust your approach based on the failure details above.',
  ].join('\n');
}

type Sprint = Outcome & { readonly telemetry: Record<string, unknown>; readonly unloadable?: true };

/** Runs the child once, to completion; its events are folded into the `stack.child.*` telemetry. */
async function runSprint(node: GraphNode, child: ManagerChild, context: RunContext, cycle: number, services: HandlerServices, signal: AbortSignal): Promise<Sprint> {
  const events: RunEvent[] = [];
  const collect = (event: RunEvent) => void events.push(event);
  let outcome: Outcome;
  let scopeId: string;
  if (child.kind === 'dotfile') {
    // The node's `context.*` attributes are also the child's launch parameters (`$key` in its commands).
    const params = childContextSeed(node, HANDLER_TYPE);
    const handle = services.startChildPipeline(child.dotFile, context, node.id, { params, ...(child.workdir ? { cwd: child.workdir } : {}), onEvent: collect });
    if (!handle.loaded) return { ...(await handle.outcome), telemetry: {}, unloadable: true };
    const cancel = () => handle.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      outcome = await handle.outcome;
    } finally {
      signal.removeEventListener('abort', cancel);
    }
    scopeId = handle.scope.id;
  } else {
    const result = await services.runBranch(child.startNodeId, context, inGraphChildEnds(services.graph, node.id), `${node.id}:cycle_${cycle}`, signal, collect);
    outcome = result.outcome;
    scopeId = result.scopeId;
  }
  const telemetry = new ChildTelemetry(scopeId);
  for (const event of events) telemetry.observe(event);
  telemetry.finished(outcome);
  return { ...outcome, telemetry: { ...telemetry.snapshot() } };
}

/**
 * Where an in-graph child's walk ends: at an exit or a fan-in (the reference's subgraph runner),
 * and before it would come back to its own manager, which would start a manager inside its child.
 */
function inGraphChildEnds(graph: Graph, managerId: string): ReadonlySet<string> {
  const ends = new Set([managerId]);
  for (const node of graph.nodes.values()) if (isExitNode(node) || resolveHandlerType(node) === 'parallel.fan_in') ends.add(node.id);
  return ends;
}
