import path from 'node:path';
import { evaluateCondition } from '../conditions/condition';
import type { GraphNode } from '../model/graph';
import { writeFileAtomic } from '../runtime/atomic-write';
import { ChildTelemetry } from '../runtime/child-telemetry';
import type { RunContext } from '../runtime/context';
import { expandPrompt } from '../runtime/expand';
import type { ManagerConfig } from '../runtime/manager-config';
import { readManagerConfig } from '../runtime/manager-config';
import type { Outcome } from '../runtime/outcome';
import type { ChildPipelineHandle, Handler, HandlerServices } from './handler';

/** The file a steer writes into the child's active stage directory (specs/EXTENSIONS.md). */
const STEER_FILE = 'steer.md';

interface Supervised {
  readonly handle: ChildPipelineHandle;
  readonly telemetry: ChildTelemetry;
  /** Resolves (never rejects) when the child has finished. */
  readonly done: Promise<void>;
}

/**
 * Canonical §4.11, experimental there and here: starts the child pipeline (stack.child_autostart),
 * then cycles observe → steer → check → wait until the child finishes, the stop condition holds or
 * max_cycles run out. Whatever ends the loop, a child still running is cancelled and awaited, so no
 * process outlives the node.
 */
export const managerLoopHandler: Handler = {
  async execute({ node, context, services, signal }) {
    const parsed = readManagerConfig(node, services.graph, services.cwd);
    if (!parsed.ok) return { status: 'fail', isExplicit: false, failureReason: parsed.error };
    const { config } = parsed;
    const child = config.autostart ? supervise(node, config, context, services) : undefined;
    try {
      return await superviseLoop(node, config, context, services, signal, child);
    } finally {
      if (child) {
        child.handle.cancel();
        await child.done;
      }
    }
  },
};

function supervise(node: GraphNode, config: ManagerConfig, context: RunContext, services: HandlerServices): Supervised {
  // The child emits nothing before startChildPipeline returns, so the tap is set in time.
  const tap: { telemetry?: ChildTelemetry } = {};
  const handle = services.startChildPipeline(config.childDotFile, context.clone(), node.id, {
    ...(config.childWorkdir ? { cwd: config.childWorkdir } : {}),
    onEvent: (event) => tap.telemetry?.observe(event),
  });
  const telemetry = new ChildTelemetry(handle.scope.id);
  telemetry.started();
  tap.telemetry = telemetry;
  const done = handle.outcome.then((outcome) => telemetry.finished(outcome));
  return { handle, telemetry, done };
}

async function superviseLoop(node: GraphNode, config: ManagerConfig, context: RunContext, services: HandlerServices, signal: AbortSignal, child: Supervised | undefined): Promise<Outcome> {
  let observed: Record<string, unknown> = {};
  const lookup = (key: string) => (key in observed ? observed[key] : context.get(key));
  const steeredVisits = new Set<string>();
  const report = (cycle: number) => ({ ...(child ? child.telemetry.snapshot() : {}), 'stack.manager.cycles': cycle, 'stack.manager.steers': steeredVisits.size });

  for (let cycle = 1; cycle <= config.maxCycles; cycle++) {
    if (config.actions.has('observe') && child) observed = { ...child.telemetry.snapshot() };
    if (config.actions.has('steer') && child && config.steerPrompt) steer(child, config.steerPrompt, node, context, services, steeredVisits);

    const status = String(lookup('stack.child.status') ?? '');
    if (status === 'completed' || status === 'failed') {
      const finalOutcome = child?.telemetry.outcome;
      const isExplicit = finalOutcome?.isExplicit ?? false;
      if (String(lookup('stack.child.outcome') ?? '') === 'success') return { status: 'success', isExplicit, notes: `child ${config.childDotFile} completed`, contextUpdates: report(cycle) };
      return { status: 'fail', isExplicit, failureReason: `child ${config.childDotFile} failed${finalOutcome?.failureReason ? `: ${finalOutcome.failureReason}` : ''}`, contextUpdates: report(cycle) };
    }
    if (config.stopCondition && evaluateCondition(config.stopCondition, { status: String(lookup('stack.child.last_status') ?? ''), lookup })) {
      return { status: 'success', isExplicit: true, notes: `stop condition satisfied at cycle ${cycle}: ${config.stopCondition.text}`, contextUpdates: report(cycle) };
    }
    if (config.actions.has('wait') && cycle < config.maxCycles) await waitForPoll(config.pollIntervalMs, services, signal, child);
  }
  return { status: 'fail', isExplicit: false, failureReason: `max cycles exceeded: ${config.maxCycles} manager cycles without the child finishing or the stop condition holding`, contextUpdates: report(config.maxCycles) };
}

/** Sleeps one poll interval on the injected clock, waking early when the child finishes. */
async function waitForPoll(ms: number, services: HandlerServices, signal: AbortSignal, child: Supervised | undefined): Promise<void> {
  const wake = new AbortController();
  void child?.done.then(() => wake.abort());
  try {
    await services.clock.sleep(ms, AbortSignal.any([signal, wake.signal]));
  } catch (error) {
    if (signal.aborted) throw error;
  }
}

/**
 * Writes the expanded prompt to `<child run dir>/<active node>/steer.md`, once per visit of a
 * child node (the steer cooldown). Agents find it in their stage directory.
 */
function steer(child: Supervised, instruction: string, node: GraphNode, context: RunContext, services: HandlerServices, steered: Set<string>): void {
  const active = child.telemetry.active;
  if (!active) return;
  const visit = `${active}#${child.telemetry.snapshot()['stack.child.completed_count']}`;
  if (steered.has(visit)) return;
  steered.add(visit);
  const file = path.join(child.handle.runDirectory.stageDir(active), STEER_FILE);
  writeFileAtomic(file, `${expandPrompt(instruction, services.graph, context)}\n`);
  services.emit({ type: 'output', scope: services.scope, nodeId: node.id, stream: 'stdout', text: `steered ${active}: ${file}\n` });
}
