import type { Graph, GraphNode } from '../model/graph';
import type { FidelityMode } from './backend';
import type { ContextValues, RunContext } from './context';
import type { OutcomeRecord } from './state';

const modes: readonly FidelityMode[] = ['full', 'truncate', 'compact', 'summary:low', 'summary:medium', 'summary:high'];

function asMode(value: string | undefined): FidelityMode | undefined {
  return modes.find((mode) => mode === value);
}

/** Canonical §5.4: incoming edge, then node, then graph default, then compact. */
export function resolveFidelity(node: GraphNode, graph: Graph, edgeFidelity: string | undefined): FidelityMode {
  return asMode(edgeFidelity) ?? asMode(node.attributes.get('fidelity')?.value) ?? asMode(graph.attributes.get('default_fidelity')?.value) ?? 'compact';
}

/**
 * Canonical §5.4 thread resolution: node thread_id, edge thread_id, graph default thread
 * (`default_thread_id`, or the older graph `thread_id`), subgraph class, then the previous node —
 * meaning the thread the previous node ran on (recorded in the context), so a chain of
 * thread-less `full` nodes is one thread.
 */
export function resolveThreadKey(
  node: GraphNode,
  graph: Graph,
  incomingEdge: { readonly from: string; readonly attributes: ReadonlyMap<string, { value: string }> } | undefined,
  context: Pick<RunContext, 'get'>,
): string {
  const previousThread = incomingEdge ? context.get(threadContextKey(incomingEdge.from)) : undefined;
  return (
    node.attributes.get('thread_id')?.value ||
    incomingEdge?.attributes.get('thread_id')?.value ||
    graph.attributes.get('default_thread_id')?.value ||
    graph.attributes.get('thread_id')?.value ||
    node.derivedClasses[node.derivedClasses.length - 1] ||
    (typeof previousThread === 'string' ? previousThread : '') ||
    incomingEdge?.from ||
    node.id
  );
}

/** Context key recording the thread a `full`-fidelity node ran on (read by the next node's fallback). */
export function threadContextKey(nodeId: string): string {
  return `internal.thread.${nodeId}`;
}

export interface PreambleInput {
  readonly goal: string;
  readonly runId: string;
  readonly completed: readonly string[];
  readonly outcomes: Readonly<Record<string, OutcomeRecord>>;
  readonly context: ContextValues;
}

/** Approximate character budgets (≈4 characters a token) for the summary modes. */
const summaryBudget: Partial<Record<FidelityMode, number>> = { 'summary:low': 2400, 'summary:medium': 6000, 'summary:high': 12000 };

const hiddenKeyPrefixes = ['internal.', 'feedback.channel.', 'graph.', 'parallel.results'];

function visibleContext(context: ContextValues): Array<[string, string]> {
  return Object.entries(context)
    .filter(([key]) => !hiddenKeyPrefixes.some((prefix) => key.startsWith(prefix)) && !key.startsWith('prior_critiques_'))
    .map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]);
}

/** The context carried into a fresh session (canonical §5.4); `full` carries a transcript instead. */
export function buildPreamble(mode: FidelityMode, input: PreambleInput): string {
  if (mode === 'full') return '';
  const header = [`Pipeline goal: ${input.goal || '(none)'}`, `Run: ${input.runId}`];
  if (mode === 'truncate') return header.join('\n');
  const stageLines = input.completed.map((id) => {
    const record = input.outcomes[id];
    const detail = record?.failureReason ?? record?.notes ?? '';
    return `- ${id}: ${record?.status ?? 'done'}${detail ? ` — ${detail.replace(/\s+/g, ' ').slice(0, mode === 'compact' ? 120 : 400)}` : ''}`;
  });
  const contextLines = visibleContext(input.context).map(([key, value]) => `- ${key}: ${value.replace(/\s+/g, ' ').slice(0, mode === 'compact' ? 120 : 600)}`);
  const text = [...header, '', 'Completed stages:', ...(stageLines.length ? stageLines : ['- (none yet)']), '', 'Context:', ...(contextLines.length ? contextLines : ['- (empty)'])].join('\n');
  const budget = summaryBudget[mode] ?? 4000;
  return text.length > budget ? `${text.slice(0, budget)}\n…(summary truncated to the ${mode} budget)` : text;
}
