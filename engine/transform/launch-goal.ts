import { setAttribute } from '../model/graph';
import type { Transform } from './transform';

/**
 * A `goal` launch parameter (`--param goal="…"`, the bundle README's own example) is the run's
 * goal: it replaces the graph attribute before anything reads it, so `$goal` in prompts and
 * commands, `graph.goal` in the context and the manifest all agree.
 */
export const launchGoalTransform: Transform = {
  name: 'launch_goal',
  apply(graph, context) {
    const goal = context.params['goal'];
    if (goal === undefined) return { graph, diagnostics: [] };
    const written = graph.attributes.get('goal');
    const attribute = { ...(written ?? { key: 'goal', quoted: true }), value: goal, origin: 'transform' as const };
    return { graph: { ...graph, attributes: setAttribute(graph.attributes, attribute) }, diagnostics: [] };
  },
};
