import type { Graph, GraphNode } from '../model/graph';
import { isBuiltinHandlerType } from '../model/handler-types';
import { boolAttr, listAttr, stringAttr } from '../runtime/node-config';
import { findVariables } from '../transform/variables';

// Keys the engine itself sets during a run (runner, walker, handlers, feedback).
export const engineKeys: ReadonlySet<string> = new Set(['outcome', 'preferred_label', 'current_node', 'run_id', 'iteration', 'loop_count', 'last_stage', 'last_response', 'tool.output', 'tool.last_line']);
const enginePrefixes = ['graph.', 'internal.', 'human.gate.', 'stack.child.', 'stack.manager.', 'parallel.', 'feedback.channel.', 'prior_critiques_'];

/** What the nodes upstream of a point in the graph can have written into the context. */
export interface ContextWrites {
  /** Some upstream node writes keys nobody can list (parse_json, a custom handler). */
  readonly anything: boolean;
  readonly keys: ReadonlySet<string>;
  /** Structured-output nodes write their id and everything under it. */
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

/** The keys a node declares or is known to write: `outputs`, a structured-output object, or anything (parse_json, custom handlers). */
function writesOf(node: GraphNode, handler: string): { anything: boolean; keys: readonly string[]; prefix?: string } {
  const anything = boolAttr(node, 'parse_json') || !isBuiltinHandlerType(handler);
  return { anything, keys: listAttr(node, 'outputs'), ...(stringAttr(node, 'response_schema') ? { prefix: node.id } : {}) };
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
    if (writes.prefix !== undefined) prefixes.push(writes.prefix);
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
