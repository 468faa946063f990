import type { Graph, GraphEdge, GraphNode } from '../model/graph';
import { isExitNode, isStartNode, resolveHandlerType } from '../model/handler-types';
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
  readonly members: ReadonlySet<string>;
  /** Edges leaving the component. */
  readonly exits: readonly GraphEdge[];
}

const cache = new WeakMap<RuleContext['adjacency'], GraphAnalysis>();

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
  const retryTargets = (attributes: Graph['attributes']) =>
    ['retry_target', 'fallback_retry_target'].map((key) => attributes.get(key)?.value.trim() ?? '').filter((id) => graph.nodes.has(id));
  const graphRetryTargets = retryTargets(graph.attributes);
  const reachable = new Set<string>();
  if (start) {
    const queue = [start.id];
    reachable.add(start.id);
    const visit = (id: string) => {
      if (reachable.has(id)) return;
      reachable.add(id);
      queue.push(id);
    };
    for (let i = 0; i < queue.length; i++) {
      const id = queue[i] as string;
      for (const edge of adjacency.outgoing.get(id) ?? []) visit(edge.to);
      const node = graph.nodes.get(id);
      if (node) for (const target of retryTargets(node.attributes)) visit(target);
      if (id === exit?.id) for (const target of graphRetryTargets) visit(target);
    }
  }

  const cycles: Cycle[] = [];
  const cycleOf = new Map<string, Cycle>();
  const order = new Map(nodes.map((node, i) => [node.id, i]));
  for (const component of stronglyConnectedComponents([...graph.nodes.keys()], adjacency.outgoing)) {
    const members = new Set(component);
    const only = component[0] as string;
    const selfLoop = component.length === 1 && (adjacency.outgoing.get(only) ?? []).some((edge) => edge.to === only);
    if (component.length < 2 && !selfLoop) continue;
    const sorted = [...component].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    const exits = sorted.flatMap((id) => (adjacency.outgoing.get(id) ?? []).filter((edge) => !members.has(edge.to)));
    const cycle: Cycle = { nodes: sorted, members, exits };
    cycles.push(cycle);
    for (const id of component) cycleOf.set(id, cycle);
  }
  cycles.sort((a, b) => (order.get(a.nodes[0] as string) ?? 0) - (order.get(b.nodes[0] as string) ?? 0));
  const hasRetryTargets = graphRetryTargets.length > 0 || nodes.some((node) => retryTargets(node.attributes).length > 0);
  return { ...(start ? { start } : {}), ...(exit ? { exit } : {}), handlerOf, reachable, cycles, cycleOf, hasRetryTargets };
}

/** Tarjan's algorithm, iterative so that a 10,000-node chain cannot overflow the stack. */
function stronglyConnectedComponents(ids: readonly string[], outgoing: ReadonlyMap<string, readonly GraphEdge[]>): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const root of ids) {
    if (index.has(root)) continue;
    const frames: { id: string; next: number }[] = [{ id: root, next: 0 }];
    index.set(root, counter);
    lowLink.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as { id: string; next: number };
      const edges = outgoing.get(frame.id) ?? [];
      if (frame.next < edges.length) {
        const to = (edges[frame.next++] as GraphEdge).to;
        if (!index.has(to)) {
          index.set(to, counter);
          lowLink.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          frames.push({ id: to, next: 0 });
        } else if (onStack.has(to)) {
          lowLink.set(frame.id, Math.min(lowLink.get(frame.id) as number, index.get(to) as number));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) lowLink.set(parent.id, Math.min(lowLink.get(parent.id) as number, lowLink.get(frame.id) as number));
      if (lowLink.get(frame.id) === index.get(frame.id)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.id);
        components.push(component);
      }
    }
  }
  return components;
}
