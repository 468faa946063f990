import type { GraphNode } from '../model/graph';
import { boolAttr, stringAttr } from '../model/attribute-readers';
import type { StageStatus } from '../model/stage-status';

/** The statuses a node can hand to edge selection; RETRY never gets there (the ladder ends in FAIL or PARTIAL_SUCCESS). */
type RoutedStatus = Exclude<StageStatus, 'retry'>;

export interface KnownOutcomes {
  readonly statuses: ReadonlySet<RoutedStatus>;
  /** Why these are all: "a start node always succeeds". */
  readonly reason: string;
}

// Handlers whose verdict is fixed by the engine, not by an LLM or a child run.
const baseOutcomes: Readonly<Record<string, { readonly statuses: readonly RoutedStatus[]; readonly reason: string }>> = {
  start: { statuses: ['success'], reason: 'a start node always succeeds' },
  exit: { statuses: ['success'], reason: 'an exit node always succeeds' },
  conditional: { statuses: ['success'], reason: 'a diamond always succeeds, and a failure never reaches it' },
  tool: { statuses: ['success', 'fail'], reason: 'a tool node ends in success or fail (its exit status)' },
  'wait.human': { statuses: ['success', 'fail'], reason: 'a human gate ends in success (an answer) or fail (skipped, or no answer after its retries)' },
};

/**
 * What edge selection can see from `node`, when its handler fixes it (structural nodes, tools,
 * human gates), widened by the node's own attributes: `requires` can skip it, `timeout` and
 * `must_write` can fail it, `allow_partial` / `continue_on_fail` can turn a failure partial.
 * Undefined for LLM, parallel, folder and custom nodes, whose outcomes are open.
 */
export function knownOutcomes(node: GraphNode, handler: string): KnownOutcomes | undefined {
  const base = baseOutcomes[handler];
  if (!base) return undefined;
  const statuses = new Set(base.statuses);
  if (stringAttr(node, 'requires')) statuses.add(boolAttr(node, 'auto_status') ? 'success' : 'skipped');
  if (stringAttr(node, 'timeout') || stringAttr(node, 'must_write')) statuses.add('fail');
  if (boolAttr(node, 'allow_partial') || boolAttr(node, 'continue_on_fail')) statuses.add('partial_success');
  const widened = statuses.size > base.statuses.length;
  return { statuses, reason: widened ? `\`${node.id}\` can only end in ${[...statuses].join(', ')}` : base.reason };
}
