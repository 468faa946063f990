import type { Graph } from '../model/graph';
import type { ContextValues } from './context';
import { stringAttr } from '../model/attribute-readers';
import type { OutcomeRecord } from './state';

/** Ledger feedback_from: the curation bounds of the critique channel. */
const MAX_CRITIQUES = 5;
const MAX_CRITIQUE_CHARS = 500;
const CHANNEL_PREFIX = 'feedback.channel.';
export const PRIOR_CRITIQUES_PREFIX = 'prior_critiques_';

export interface FeedbackDelivery {
  readonly contextUpdates: ContextValues;
  /** feedback/<node>.md contents, by target node. */
  readonly files: ReadonlyMap<string, string>;
}

/** The critic's words: full tool stdout, else its last line, else notes, else its failure reason. */
function critiqueText(record: OutcomeRecord): string | undefined {
  return [record.toolOutput, record.toolLastLine, record.notes, record.failureReason].find((text) => text !== undefined && text.trim() !== '')?.trim();
}

/**
 * What an outcome record keeps of a tool's output: enough for any critique (its first
 * MAX_CRITIQUE_CHARS after leading blanks), not a copy of output that can run to megabytes.
 */
export function critiqueSource(text: string): string {
  const bound = 8 * MAX_CRITIQUE_CHARS;
  return text.length > bound ? text.trimStart().slice(0, bound) : text;
}

function truncateCritique(text: string): string {
  return text.length > MAX_CRITIQUE_CHARS ? `${text.slice(0, MAX_CRITIQUE_CHARS)}[…truncated]` : text;
}

/**
 * Called on a loop_restart, before the iteration's outcomes are cleared: appends each critic's
 * output to its listener's bounded channel and publishes `prior_critiques_<node>`.
 */
export function collectFeedback(graph: Graph, outcomes: Readonly<Record<string, OutcomeRecord>>, context: ContextValues, iteration: number): FeedbackDelivery {
  const contextUpdates: ContextValues = {};
  const files = new Map<string, string>();
  for (const node of graph.nodes.values()) {
    const critic = stringAttr(node, 'feedback_from');
    const record = critic ? outcomes[critic] : undefined;
    const text = record ? critiqueText(record) : undefined;
    if (!text) continue;
    const previous = context[CHANNEL_PREFIX + node.id];
    const channel = [...(Array.isArray(previous) ? (previous as string[]) : []), `Iteration ${iteration} critique: ${truncateCritique(text)}`].slice(-MAX_CRITIQUES);
    contextUpdates[CHANNEL_PREFIX + node.id] = channel;
    contextUpdates[PRIOR_CRITIQUES_PREFIX + node.id] = channel.join('\n');
    files.set(node.id, `${channel.join('\n\n')}\n`);
  }
  return { contextUpdates, files };
}

/** Delivery is guaranteed: a prompt without the placeholder gets a labelled block carrying it. */
export function ensureFeedbackPlaceholder(prompt: string, nodeId: string): string {
  const placeholder = `$${PRIOR_CRITIQUES_PREFIX}${nodeId}`;
  if (prompt.includes(placeholder) || prompt.includes(`\${${PRIOR_CRITIQUES_PREFIX}${nodeId}}`)) return prompt;
  return `${prompt}\n\n## Critiques of earlier iterations\n${placeholder}`;
}
