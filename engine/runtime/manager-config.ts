import path from 'node:path';
import type { Condition } from '../conditions/condition';
import { parseCondition } from '../conditions/condition';
import { parseDuration } from '../model/duration';
import type { Graph, GraphNode } from '../model/graph';
import { outgoingEdges } from '../model/graph';
import { stringAttr } from '../model/attribute-readers';

type ManagerAction = 'observe' | 'steer' | 'wait';
const ACTIONS: readonly ManagerAction[] = ['observe', 'steer', 'wait'];

/**
 * What a manager supervises: the pipeline in `stack.child_dotfile`, or, without one, the in-graph
 * child that starts at the target of the manager's first outgoing edge (as the reference runs it).
 */
export type ManagerChild =
  | { readonly kind: 'dotfile'; readonly dotFile: string; readonly workdir?: string }
  | { readonly kind: 'in-graph'; readonly startNodeId: string };

/** A manager loop's settings (canonical §4.11 with the reference's sprints), read and checked before anything starts. */
export interface ManagerConfig {
  /** Absent with `stack.child_autostart=false`: the loop then only evaluates its stop condition. */
  readonly child?: ManagerChild;
  readonly pollIntervalMs: number;
  readonly maxCycles: number;
  readonly stopCondition?: Condition;
  readonly actions: ReadonlySet<ManagerAction>;
}

export function readManagerConfig(node: GraphNode, graph: Graph, cwd: string): { ok: true; config: ManagerConfig } | { ok: false; error: string } {
  const fail = (error: string) => ({ ok: false as const, error: `manager ${node.id}: ${error}` });

  // The reference's default: a sprint runs the child to completion, so nothing is gained by waiting.
  const pollText = stringAttr(node, 'manager.poll_interval') ?? '0s';
  const poll = parseDuration(pollText, 's');
  if (!poll.ok) return fail(`manager.poll_interval: ${poll.message}`);

  const cyclesText = stringAttr(node, 'manager.max_cycles') ?? '1000';
  const maxCycles = Number(cyclesText);
  if (!Number.isInteger(maxCycles) || maxCycles < 1) return fail(`manager.max_cycles="${cyclesText}" is not an integer of at least 1`);

  let stopCondition: Condition | undefined;
  const stopText = stringAttr(node, 'manager.stop_condition');
  if (stopText) {
    const parsed = parseCondition(stopText);
    if (!parsed.ok) return fail(`manager.stop_condition: ${parsed.error.message}`);
    stopCondition = parsed.condition;
  }

  const actions = new Set<ManagerAction>();
  for (const word of (stringAttr(node, 'manager.actions') ?? 'observe,wait').split(',').map((part) => part.trim()).filter(Boolean)) {
    if (!(ACTIONS as readonly string[]).includes(word)) return fail(`manager.actions: unknown action "${word}" (use ${ACTIONS.join(', ')})`);
    actions.add(word as ManagerAction);
  }

  const autostartText = stringAttr(node, 'stack.child_autostart')?.trim().toLowerCase() ?? 'true';
  const autostart = autostartText === 'true' || autostartText === '1' || autostartText === 'yes';
  const common = { pollIntervalMs: poll.millis, maxCycles, ...(stopCondition ? { stopCondition } : {}), actions };
  if (!autostart) return { ok: true, config: common };
  const child = managerChild(node, graph, cwd);
  if (!child) return fail('has no child to supervise: set stack.child_dotfile, or give it an outgoing edge to the first node of its in-graph child');
  return { ok: true, config: { ...common, child } };
}

function managerChild(node: GraphNode, graph: Graph, cwd: string): ManagerChild | undefined {
  const fromNodeOrGraph = (key: string) => stringAttr(node, key) ?? stringAttr(graph, key);
  const dotFile = fromNodeOrGraph('stack.child_dotfile');
  if (dotFile) {
    const workdir = fromNodeOrGraph('stack.child_workdir');
    return { kind: 'dotfile', dotFile, ...(workdir ? { workdir: path.resolve(cwd, workdir) } : {}) };
  }
  // The in-graph child starts at the target of the first outgoing edge, in source order.
  const first = outgoingEdges(graph, node.id)[0];
  return first ? { kind: 'in-graph', startNodeId: first.to } : undefined;
}
