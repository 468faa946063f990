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

/** Approximate character budgets (≈4 characters a token) for the summary modes: canonical §5.4's ~600, ~1500 and ~3000 tokens. */
const summaryBudget: Partial<Record<FidelityMode, number>> = { 'summary:low': 2400, 'summary:medium': 6000, 'summary:high': 12000 };

const hiddenKeyPrefixes = ['internal.', 'feedback.channel.', 'graph.', 'parallel.results'];

function visibleContext(context: ContextValues): Array<[string, string]> {
  return Object.entries(context)
    .filter(([key]) => !hiddenKeyPrefixes.some((prefix) => key.startsWith(prefix)) && !key.startsWith('prior_critiques_'))
    .map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]);
}

const oneLine = (text: string, max: number) => text.replace(/\s+/g, ' ').trim().slice(0, max);
const listed = (lines: readonly string[], empty: string) => (lines.length > 0 ? lines : [empty]);

function contextLines(input: PreambleInput, max: number, without: readonly string[] = []): string[] {
  return visibleContext(input.context)
    .filter(([key]) => !without.includes(key))
    .map(([key, value]) => `- ${key}: ${oneLine(value, max)}`);
}

function lastResponse(input: PreambleInput, max: number): string[] {
  const text = input.context['last_response'];
  return typeof text === 'string' && text.trim() !== '' ? ['Last response:', `  ${oneLine(text, max)}`, ''] : [];
}

/**
 * What each fresh-session mode carries below the goal and run (canonical §5.4's table): compact a
 * bullet list of stages and key values; summary:low only counts and stage names; summary:medium the
 * stages' outcomes, the last response and the active context; summary:high adds each stage's failure
 * and the whole context state, each value at more length.
 */
const sections: Readonly<Record<'compact' | 'summary:low' | 'summary:medium' | 'summary:high', (input: PreambleInput) => string[]>> = {
  compact: (input) => [
    'Completed stages:',
    ...listed(input.completed.map((id) => {
      const record = input.outcomes[id];
      const detail = record?.failureReason ?? record?.notes ?? '';
      return `- ${id}: ${record?.status ?? 'done'}${detail ? ` — ${oneLine(detail, 120)}` : ''}`;
    }), '- (none yet)'),
    '',
    'Context:',
    ...listed(contextLines(input, 120), '- (empty)'),
  ],
  'summary:low': (input) => {
    const statuses = input.completed.map((id) => input.outcomes[id]?.status ?? 'success');
    const succeeded = statuses.filter((status) => status === 'success' || status === 'partial_success').length;
    const failed = statuses.filter((status) => status === 'fail').length;
    return input.completed.length === 0
      ? ['Progress: no stage has completed yet.']
      : [`Progress: ${succeeded} of ${input.completed.length} stages succeeded, ${failed} failed.`, `Stages: ${input.completed.join(', ')}`];
  },
  'summary:medium': (input) => [
    'Stage outcomes:',
    ...listed(input.completed.map((id) => {
      const record = input.outcomes[id];
      return `- ${id}: ${record?.status ?? 'done'}${record?.notes ? ` — ${oneLine(record.notes, 300)}` : ''}`;
    }), '- (none yet)'),
    '',
    ...lastResponse(input, 600),
    'Active context:',
    ...listed(contextLines(input, 300, ['last_response']), '- (empty)'),
  ],
  'summary:high': (input) => [
    'Detailed stage outcomes:',
    ...listed(input.completed.flatMap((id) => {
      const record = input.outcomes[id];
      return [
        `- ${id}: ${record?.status ?? 'done'}${record?.preferredLabel ? ` [${record.preferredLabel}]` : ''}`,
        ...(record?.notes ? [`    Notes: ${oneLine(record.notes, 600)}`] : []),
        ...(record?.failureReason ? [`    Failure: ${oneLine(record.failureReason, 600)}`] : []),
      ];
    }), '- (none yet)'),
    '',
    ...lastResponse(input, 2000),
    'Full context state:',
    ...listed(contextLines(input, 1000, ['last_response']), '- (empty)'),
  ],
};

/** The context carried into a fresh session (canonical §5.4); `full` carries a transcript instead. */
export function buildPreamble(mode: FidelityMode, input: PreambleInput): string {
  if (mode === 'full') return '';
  const header = [`Pipeline goal: ${input.goal || '(none)'}`, `Run: ${input.runId}`];
  if (mode === 'truncate') return header.join('\n');
  const text = [...header, '', ...sections[mode](input)].join('\n');
  const budget = summaryBudget[mode] ?? 4000;
  return text.length > budget ? `${text.slice(0, budget)}\n…(summary truncated to the ${mode} budget)` : text;
}
