import path from 'node:path';
import type { Condition } from '../conditions/condition';
import { parseCondition } from '../conditions/condition';
import { parseDuration } from '../model/duration';
import type { Graph, GraphNode } from '../model/graph';
import { stringAttr } from './node-config';

type ManagerAction = 'observe' | 'steer' | 'wait';
const ACTIONS: readonly ManagerAction[] = ['observe', 'steer', 'wait'];

/** A manager loop's settings (canonical §4.11), read and checked before anything starts. */
export interface ManagerConfig {
  readonly childDotFile: string;
  /** Absolute working directory of the child, when stack.child_workdir sets one. */
  readonly childWorkdir?: string;
  readonly autostart: boolean;
  readonly pollIntervalMs: number;
  readonly maxCycles: number;
  readonly stopCondition?: Condition;
  readonly actions: ReadonlySet<ManagerAction>;
  /** The steering instruction (the node's prompt, unexpanded). */
  readonly steerPrompt?: string;
}

export function readManagerConfig(node: GraphNode, graph: Graph, cwd: string): { ok: true; config: ManagerConfig } | { ok: false; error: string } {
  const fail = (error: string) => ({ ok: false as const, error: `manager ${node.id}: ${error}` });
  const fromNodeOrGraph = (key: string) => stringAttr(node, key) ?? stringAttr(graph, key);
  const childDotFile = fromNodeOrGraph('stack.child_dotfile');
  if (!childDotFile) return fail('no stack.child_dotfile on the node or the graph');
  const workdir = fromNodeOrGraph('stack.child_workdir');

  const pollText = stringAttr(node, 'manager.poll_interval') ?? '45s';
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
  const steerPrompt = stringAttr(node, 'prompt');
  if (actions.has('steer') && !steerPrompt) return fail('manager.actions includes steer, but the node has no prompt to steer with');

  const autostartText = stringAttr(node, 'stack.child_autostart')?.trim().toLowerCase() ?? 'true';
  return {
    ok: true,
    config: {
      childDotFile,
      ...(workdir ? { childWorkdir: path.resolve(cwd, workdir) } : {}),
      autostart: autostartText === 'true' || autostartText === '1' || autostartText === 'yes',
      pollIntervalMs: poll.millis,
      maxCycles,
      ...(stopCondition ? { stopCondition } : {}),
      actions,
      ...(steerPrompt ? { steerPrompt } : {}),
    },
  };
}
