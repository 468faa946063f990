import type { Graph } from '../model/graph';
import { expandVariables, shellQuote } from '../transform/variables';
import { stringifyContextValue } from '../conditions/condition';
import type { RunContext } from './context';
import { PRIOR_CRITIQUES_PREFIX } from './feedback';

function lookup(graph: Graph, context: RunContext, name: string): string | undefined {
  if (name === 'goal') return graph.attributes.get('goal')?.value ?? '';
  const value = context.get(name);
  return value === undefined || value === null ? undefined : stringifyContextValue(value);
}

/** Prompts: `$goal`, params and plain context keys (dotted keys stay literal, as the ledger specifies). */
export function expandPrompt(text: string, graph: Graph, context: RunContext): string {
  return expandVariables(text, (name) => {
    if (name.includes('.')) return undefined;
    const value = lookup(graph, context, name);
    // An empty critique channel (first iteration) must not leave the placeholder in the prompt.
    return value ?? (name.startsWith(PRIOR_CRITIQUES_PREFIX) ? '' : undefined);
  });
}

/** Tool commands: the same variables, dotted keys too, each value shell-quoted as one word of data. */
export function expandCommand(text: string, graph: Graph, context: RunContext): string {
  return expandVariables(text, (name) => lookup(graph, context, name), shellQuote);
}
