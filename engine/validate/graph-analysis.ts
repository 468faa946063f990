import type { Graph, GraphEdge, GraphNode } from '../model/graph';
import { isExitNode, isStartNode, resolveHandlerType } from '../model/handler-types';
import { breadthFirst } from './breadth-first';
import type { RuleContext } from './rule';

/** Facts several rules share, computed once per validation run in linear time. */
export interface GraphAnalysis {
  readonly start?: GraphNode;
  readonly exit?: GraphNode;
  readonly handlerOf: (node: GraphNode) => string;
  /** Nodes reachable from the start node over edges and retry targets (empty when there is no start node). */
  readonly reachable: ReadonlySet<string>;
  /** Strongly connected components that contain a cycle (two or more nodes, or a self-loop). */
  readonly cycles: readonly Cycle[];
  /** The cycle a node belongs to, if any. */
  readonly cycleOf: ReadonlyMap<string, Cycle>;
  /** Whether any node or the graph names a retry target: a corrective path even without a cycle of edges. */
  readonly hasRetryTargets: boolean;
}

export interface Cycle {
  /** Member node ids in declaration order. */
  readonly nodes: readonly string[];
  /** Edges leaving the component. */
  readonly exits: readonly GraphEdge[];
}

const cache = new WeakMap<RuleContext['adjacency'], GraphAnalysis>();
const retryKeys = ['retry_target', 'fallback_retry_target'] as const;
const noTargets: readonly string[] = [];

export function analyze(context: RuleContext): GraphAnalysis {
  let analysis = cache.get(context.adjacency);
  if (!analysis) {
    analysis = computeAnalysis(context);
    cache.set(context.adjacency, analysis);
  }
  return analysis;
}

function computeAnalysis({ graph, adjacency }: RuleContext): GraphAnalysis {
  const nodes = [...graph.nodes.values()];
  const start = nodes.find(isStartNode);
  const exit = nodes.find(isExitNode);
  const handlers = new Map<string, string>();
  const handlerOf = (node: GraphNode): string => {
    let handler = handlers.get(node.id);
    if (handler === undefined) {
      handler = resolveHandlerType(node);
      handlers.set(node.id, handler);
    }
    return handler;
  };

  // A retry target is a way in too: the engine jumps there when a node (or, for the graph's
  // targets, the exit's goal-gate check) fails.
  const retryTargets = (attributes: Graph['attributes']): readonly string[] => {
    let targets: string[] | undefined;
    for (const key of retryKeys) {
      const id = attributes.get(key)?.value.trim() ?? '';
      if (graph.nodes.has(id)) (targets ??= []).push(id);
    }
    return targets ?? noTargets;
  };
  const graphRetryTargets = retryTargets(graph.attributes);
  const successors = (id: string): readonly string[] => {
    const next = (adjacency.outgoing.get(id) ?? []).map((edge) => edge.to);
    const node = graph.nodes.get(id);
    if (node) for (const target of retryTargets(node.attributes)) next.push(target);
    if (id === exit?.id) for (const target of graphRetryTargets) next.push(target);
    return next;
  };
  const reachable = start ? breadthFirst([start.id], successors) : new Set<string>();

  const cycles: Cycle[] = [];
  const cycleOf = new Map<string, Cycle>();
  const order = new Map<string, number>();
  nodes.forEach((node, i) => order.set(node.id, i));
  for (const component of stronglyConnectedComponents([...graph.nodes.keys()], adjacency.outgoing)) {
    const only = component[0] as string;
    const selfLoop = component.length === 1 && (adjacency.outgoing.get(only) ?? []).some((edge) => edge.to === only);
    if (component.length < 2 && !selfLoop) continue;
    const sorted = [...component].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    const exits: GraphEdge[] = [];
    const cycle: Cycle = { nodes: sorted, exits };
    cycles.push(cycle);
    // A node belongs to one component: membership is cycleOf, with no set per cycle.
    for (const id of component) cycleOf.set(id, cycle);
    for (const id of sorted) for (const edge of adjacency.outgoing.get(id) ?? []) if (cycleOf.get(edge.to) !== cycle) exits.push(edge);
  }
  cycles.sort((a, b) => (order.get(a.nodes[0] as string) ?? 0) - (order.get(b.nodes[0] as string) ?? 0));
  const hasRetryTargets = graphRetryTargets.length > 0 || nodes.some((node) => retryTargets(node.attributes).length > 0);
  return { ...(start ? { start } : {}), ...(exit ? { exit } : {}), handlerOf, reachable, cycles, cycleOf, hasRetryTargets };
}

/** A `loop_restart=true` edge back into its own loop: a new iteration, hence a retry path. */
export function isLoopRestartBackEdge(analysis: GraphAnalysis, edge: GraphEdge): boolean {
  if (edge.attributes.get('loop_restart')?.value.trim().toLowerCase() !== 'true') return false;
  const cycle = analysis.cycleOf.get(edge.from);
  return cycle !== undefined && analysis.cycleOf.get(edge.to) === cycle;
}

/**
 * Tarjan's algorithm, iterative so that a 10,000-node chain cannot overflow the stack. Nodes are
 * numbered (ids first, in order, then any edge target that is no node) and the bookkeeping is kept
 * in arrays by number: per-id maps made this the bulk of the analysis on large graphs.
 */
function stronglyConnectedComponents(ids: readonly string[], outgoing: ReadonlyMap<string, readonly GraphEdge[]>): string[][] {
  const names = [...ids];
  const numbers = new Map<string, number>();
  names.forEach((id, k) => numbers.set(id, k));
  const numberOf = (id: string): number => {
    let k = numbers.get(id);
    if (k === undefined) {
      k = names.push(id) - 1;
      numbers.set(id, k);
    }
    return k;
  };
  const index: number[] = [];
  const lowLink: number[] = [];
  const onStack: boolean[] = [];
  const stack: number[] = [];
  const components: string[][] = [];
  let counter = 0;
  const open = (k: number) => {
    index[k] = lowLink[k] = counter++;
    stack.push(k);
    onStack[k] = true;
  };
  for (let root = 0; root < ids.length; root++) {
    if (index[root] !== undefined) continue;
    const frames: { k: number; edges: readonly GraphEdge[]; next: number }[] = [{ k: root, edges: outgoing.get(ids[root] as string) ?? [], next: 0 }];
    open(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as (typeof frames)[number];
      if (frame.next < frame.edges.length) {
        const to = (frame.edges[frame.next++] as GraphEdge).to;
        const k = numberOf(to);
        if (index[k] === undefined) {
          open(k);
          frames.push({ k, edges: outgoing.get(to) ?? [], next: 0 });
        } else if (onStack[k]) {
          lowLink[frame.k] = Math.min(lowLink[frame.k] as number, index[k]);
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) lowLink[parent.k] = Math.min(lowLink[parent.k] as number, lowLink[frame.k] as number);
      if (lowLink[frame.k] === index[frame.k]) {
        const component: string[] = [];
        let member: number;
        do {
          member = stack.pop() as number;
          onStack[member] = false;
          component.push(names[member] as string);
        } while (member !== frame.k);
        components.push(component);
      }
    }
  }
  return components;
}
