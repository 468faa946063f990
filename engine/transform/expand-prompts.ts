import type { Attributes, Graph } from '../model/graph';
import { setAttribute, withNodeAttributes } from '../model/graph';
import type { Transform } from './transform';
import { expandVariables } from './variables';

/**
 * Expands what is known before the run starts in `prompt` and `label`: `$goal` and launch
 * parameters. Runtime keys ($iteration, $prior_critiques_*, context values) stay for the
 * codergen handler; tool commands are expanded only at run time, through environment variables (runtime/expand.ts).
 */
export const promptExpansionTransform: Transform = {
  name: 'variable_expansion',
  apply(graph: Graph, context) {
    const goal = graph.attributes.get('goal')?.value ?? '';
    const resolve = (name: string): string | undefined => (name === 'goal' ? goal : context.params[name]);
    const updates = new Map<string, Attributes>();
    for (const node of graph.nodes.values()) {
      const prompt = node.attributes.get('prompt');
      if (!prompt || !prompt.value.includes('$')) continue;
      const expanded = expandVariables(prompt.value, 'keep', resolve);
      if (expanded !== prompt.value) updates.set(node.id, setAttribute(node.attributes, { ...prompt, value: expanded, origin: 'transform' }));
    }
    return { graph: withNodeAttributes(graph, updates), diagnostics: [] };
  },
};
