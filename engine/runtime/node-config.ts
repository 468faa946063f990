import type { Graph, GraphNode } from '../model/graph';
import { stringAttr } from '../model/attribute-readers';
import type { ModelSelection } from './backend';

/** The node's model, provider and reasoning effort, each falling back to the graph's. */
export function modelSelectionOf(node: GraphNode, graph: Graph): ModelSelection {
  const pick = (key: string) => stringAttr(node, key) ?? stringAttr(graph, key);
  const provider = pick('llm_provider');
  const model = pick('llm_model');
  const reasoningEffort = pick('reasoning_effort');
  return { ...(provider ? { provider } : {}), ...(model ? { model } : {}), ...(reasoningEffort ? { reasoningEffort } : {}) };
}
