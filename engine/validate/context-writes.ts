import type { Graph, GraphNode } from '../model/graph';
import { isBuiltinHandlerType } from '../model/handler-types';
import { boolAttr, listAttr, stringAttr } from '../runtime/node-config';
import { findVariables } from '../transform/variables';

// Keys the engine sets whatever the graph holds (runner, walker, feedback, every LLM node).
const engineKeys: ReadonlySet<string> = new Set(['outcome', 'preferred_label', 'current_node', 'run_id', 'iteration', 'loop_count', 'last_stage', 'last_response']);
const enginePrefixes = ['graph.', 'internal.', 'feedback.channel.', 'prior_critiques_'];
// What a handler writes when it runs: exact keys, and prefixes it writes everything under.
const handlerWrites: Readonly<Record<string, { readonly keys?: readonly string[]; readonly prefixes?: readonly string[] }>> = {
  tool: { keys: ['tool.output', 'tool.last_line'] },
  'wait.human': { prefixes: ['human.gate'] },
  'stack.manager_loop': { prefixes: ['stack.child', 'stack.manager'] },
  parallel: { prefixes: ['parallel'] },
  'parallel.fan_in': { prefixes: ['parallel'] },
};
/** Names worth suggesting for a misspelt key: the engine's and the handlers' best known. */
export const wellKnownKeys: readonly string[] = [...engineKeys, 'tool.output', 'tool.last_line', 'human.gate.selected', 'human.gate.label', 'human.gate.answer', 'stack.child.status', 'stack.child.outcome'];

/** What the nodes upstream of a point in the graph can have written into the context. */
export interface ContextWrites {
  /** Some upstream node writes keys nobody can list (parse_json, a custom handler). */
  readonly anything: boolean;
  readonly keys: ReadonlySet<string>;
  /** Keys written with everything under them: a handler's (`human.gate`, `parallel`...), a structured-output node's id. */
  readonly prefixes: readonly string[];
}

export function isEngineKey(key: string): boolean {
  return engineKeys.has(key) || enginePrefixes.some((prefix) => key.startsWith(prefix));
}

/** Names the pipeline expects at launch: `$name` / `${name}` anywhere in its node attributes (`--param name=…`). */
export function launchParameterNames(graph: Graph): Set<string> {
  const names = new Set<string>();
  for (const node of graph.nodes.values()) {
    for (const attribute of node.attributes.values()) {
      if (attribute.value.includes('$')) for (const variable of findVariables(attribute.value)) names.add(variable.name);
    }
  }
  return names;
}

/** The keys a node declares or is known to write: `outputs`, its handler's keys, a structured-output object, or anything (parse_json, custom handlers). */
function writesOf(node: GraphNode, handler: string): { anything: boolean; keys: readonly string[]; prefixes: readonly string[] } {
  const anything = boolAttr(node, 'parse_json') || !isBuiltinHandlerType(handler);
  const own = handlerWrites[handler];
  const prefixes = [...(own?.prefixes ?? []), ...(stringAttr(node, 'response_schema') ? [node.id] : [])];
  return { anything, keys: [...listAttr(node, 'outputs'), ...(own?.keys ?? [])], prefixes };
}

/** The union of what `nodeId` and every node with a path to it write (a backward walk over edges). */
export function upstreamWrites(graph: Graph, incoming: ReadonlyMap<string, readonly { readonly from: string }[]>, handlerOf: (node: GraphNode) => string, nodeId: string): ContextWrites {
  const seen = new Set([nodeId]);
  const queue = [nodeId];
  const keys = new Set<string>();
  const prefixes: string[] = [];
  let anything = false;
  for (let i = 0; i < queue.length; i++) {
    const node = graph.nodes.get(queue[i] as string);
    if (!node) continue;
    const writes = writesOf(node, handlerOf(node));
    anything ||= writes.anything;
    for (const key of writes.keys) keys.add(key);
    prefixes.push(...writes.prefixes);
    for (const edge of incoming.get(node.id) ?? []) {
      if (seen.has(edge.from)) continue;
      seen.add(edge.from);
      queue.push(edge.from);
    }
  }
  return { anything, keys, prefixes };
}

export function mayHoldKey(writes: ContextWrites, key: string): boolean {
  return writes.anything || writes.keys.has(key) || writes.prefixes.some((prefix) => key === prefix || key.startsWith(`${prefix}.`));
}
