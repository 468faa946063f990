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
function writesOf(node: GraphNode, handler: string): NodeWrites {
  const known = nodeWrites.get(node);
  if (known) return known;
  const writes = computeWrites(node, handler);
  nodeWrites.set(node, writes);
  return writes;
}

interface NodeWrites {
  readonly anything: boolean;
  readonly keys: readonly string[];
  readonly prefixes: readonly string[];
}

// Asked once per condition clause and upstream node: computed once per node and lint.
const nodeWrites = new WeakMap<GraphNode, NodeWrites>();

function computeWrites(node: GraphNode, handler: string): NodeWrites {
  const anything = boolAttr(node, 'parse_json') || !isBuiltinHandlerType(handler);
  const own = handlerWrites[handler];
  const prefixes = [...(own?.prefixes ?? []), ...(stringAttr(node, 'response_schema') ? [node.id] : [])];
  return { anything, keys: [...listAttr(node, 'outputs'), ...(own?.keys ?? [])], prefixes };
}

type Incoming = ReadonlyMap<string, readonly { readonly from: string }[]>;

/** `nodeId`, then every node with a path to it, nearest first (a backward walk over edges). */
function* upstreamNodes(graph: Graph, incoming: Incoming, nodeId: string): Iterable<GraphNode> {
  const seen = new Set([nodeId]);
  const queue = [nodeId];
  for (let i = 0; i < queue.length; i++) {
    const node = graph.nodes.get(queue[i] as string);
    if (!node) continue;
    yield node;
    for (const edge of incoming.get(node.id) ?? []) {
      if (seen.has(edge.from)) continue;
      seen.add(edge.from);
      queue.push(edge.from);
    }
  }
}

/** Whether `nodeId` or a node with a path to it can write `key`; the walk stops at the first writer. */
export function writtenUpstream(graph: Graph, incoming: Incoming, handlerOf: (node: GraphNode) => string, nodeId: string, key: string): boolean {
  for (const node of upstreamNodes(graph, incoming, nodeId)) {
    if (mayHoldKey(writesOf(node, handlerOf(node)), key)) return true;
  }
  return false;
}

/** The keys `nodeId` and every node with a path to it are known to write (for suggestions). */
export function keysWrittenUpstream(graph: Graph, incoming: Incoming, handlerOf: (node: GraphNode) => string, nodeId: string): Set<string> {
  const keys = new Set<string>();
  for (const node of upstreamNodes(graph, incoming, nodeId)) for (const key of writesOf(node, handlerOf(node)).keys) keys.add(key);
  return keys;
}

function mayHoldKey(writes: NodeWrites, key: string): boolean {
  return writes.anything || writes.keys.includes(key) || writes.prefixes.some((prefix) => key === prefix || key.startsWith(`${prefix}.`));
}
