import type { Adjacency, Graph, GraphNode } from '../model/graph';
import { isBuiltinHandlerType } from '../model/handler-types';
import { boolAttr, listAttr, stringAttr } from '../model/attribute-readers';
import { findVariables } from '../transform/variables';
import { Speller } from './did-you-mean';

// Keys the engine sets whatever the graph holds (runner, walker, feedback, every LLM node).
const engineKeys: ReadonlySet<string> = new Set(['outcome', 'preferred_label', 'current_node', 'run_id', 'iteration', 'loop_count', 'last_stage', 'last_response']);
const enginePrefixes = ['graph.', 'internal.', 'feedback.channel.', 'prior_critiques_'];
// What a handler writes when it runs: exact keys, and prefixes it writes everything under.
const handlerWrites: Readonly<Record<string, { readonly keys?: readonly string[]; readonly prefixes?: readonly string[] }>> = {
  tool: { keys: ['tool.output', 'tool.last_line'] },
  'wait.human': { prefixes: ['human.gate'] },
  'stack.manager_loop': { prefixes: ['stack.child', 'stack.manager', 'manager'] },
  parallel: { prefixes: ['parallel'] },
  'parallel.fan_in': { prefixes: ['parallel'] },
};
const handlerKeys = Object.values(handlerWrites).flatMap((writes) => writes.keys ?? []);
/** Names worth suggesting for a misspelt key: the engine's and the handlers' best known (every key a handler writes among them). */
const wellKnownKeys: readonly string[] = [...engineKeys, ...handlerKeys, 'human.gate.selected', 'human.gate.label', 'human.gate.answer', 'stack.child.status', 'stack.child.outcome'];

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

const none: readonly string[] = [];

function computeWrites(node: GraphNode, handler: string): NodeWrites {
  const anything = boolAttr(node, 'parse_json') || !isBuiltinHandlerType(handler);
  const own = handlerWrites[handler];
  const outputs = listAttr(node, 'outputs');
  // Most nodes declare nothing of their own: they share their handler's lists.
  const keys = outputs.length > 0 ? [...outputs, ...(own?.keys ?? none)] : (own?.keys ?? none);
  const prefixes = stringAttr(node, 'response_schema') ? [...(own?.prefixes ?? none), node.id] : (own?.prefixes ?? none);
  return { anything, keys, prefixes };
}

/**
 * Which keys are written before a node, for a graph: per key, the nodes a writer of it reaches (itself
 * included), found by one forward walk from its writers the first time the key is asked. Asking for
 * every condition of a long chain stays linear, where a backward walk per condition was quadratic.
 */
export class UpstreamWrites {
  private readonly reached = new Map<string, ReadonlySet<string>>();
  /** Every key an `outputs` declares and the well-known ones, indexed when a suggestion first needs them. */
  private spelling: Speller | undefined;

  constructor(
    private readonly graph: Graph,
    private readonly adjacency: Adjacency,
    private readonly handlerOf: (node: GraphNode) => string,
  ) {}

  /** Whether `nodeId` or a node with a path to it can write `key`. */
  has(nodeId: string, key: string): boolean {
    let reached = this.reached.get(key);
    if (!reached) {
      reached = this.reachedFromWriters(key);
      this.reached.set(key, reached);
    }
    return reached.has(nodeId);
  }

  /**
   * The key a misspelt `key` read after `nodeId` most likely meant: the closest of those written before
   * it, declared in any `outputs`, or well known; among equally close ones, the one written nearest
   * before it. Every key a node writes is among the declared and the well-known ones, so only a tie
   * needs the walk back from `nodeId`, and it stops at the first writer of one of the tied keys.
   */
  meant(nodeId: string, key: string): string | undefined {
    this.spelling ??= new Speller([...new Set([...this.graph.nodes.values()].flatMap((node) => listAttr(node, 'outputs'))), ...wellKnownKeys]);
    const closest = this.spelling.closest(key);
    if (closest.length <= 1) return closest[0];
    return this.writtenNearestBefore(nodeId, new Set(closest)) ?? closest[0];
  }

  /** The first of `keys` that `nodeId`, then the nodes with a path to it (nearest first), are known to write. */
  private writtenNearestBefore(nodeId: string, keys: ReadonlySet<string>): string | undefined {
    const visited = new Set([nodeId]);
    for (const id of visited) {
      const node = this.graph.nodes.get(id);
      const written = node ? writesOf(node, this.handlerOf(node)).keys.find((candidate) => keys.has(candidate)) : undefined;
      if (written !== undefined) return written;
      this.addNeighbours(id, 'incoming', visited);
    }
    return undefined;
  }

  private reachedFromWriters(key: string): ReadonlySet<string> {
    const reached = new Set<string>();
    for (const node of this.graph.nodes.values()) if (mayHoldKey(writesOf(node, this.handlerOf(node)), key)) reached.add(node.id);
    // Breadth-first: a Set's iteration visits what is added while it runs.
    for (const id of reached) this.addNeighbours(id, 'outgoing', reached);
    return reached;
  }

  /** Adds to `into` the nodes an edge joins `id` to, before it (`incoming`) or after it (`outgoing`). */
  private addNeighbours(id: string, direction: keyof Adjacency, into: Set<string>): void {
    if (!this.graph.nodes.has(id)) return;
    for (const edge of this.adjacency[direction].get(id) ?? []) {
      const other = direction === 'incoming' ? edge.from : edge.to;
      if (this.graph.nodes.has(other)) into.add(other);
    }
  }
}

function mayHoldKey(writes: NodeWrites, key: string): boolean {
  return writes.anything || writes.keys.includes(key) || writes.prefixes.some((prefix) => key.startsWith(prefix) && (key.length === prefix.length || key[prefix.length] === '.'));
}
