import type { Graph } from '../model/graph';
import type { Adjacency } from '../model/graph';
import { buildAdjacency } from '../model/graph';
import { resolveHandlerType } from '../model/handler-types';

export interface FanInTarget {
  /** Where the walk continues once the branches have joined. */
  readonly continueAt: string;
  /** Every fan-in a branch may stop at (branches that route elsewhere stop at theirs). */
  readonly stopAt: ReadonlySet<string>;
}

/**
 * Finds the fan-in where the branches of a fan-out converge by walking forward from each branch.
 * A nested fan-out opens a level that its own fan-in closes, so an inner join is never mistaken
 * for the outer one. The fan-in reached by the most branches wins, then the nearest, then by id.
 */
export function findFanIn(graph: Graph, branchStarts: readonly string[]): FanInTarget | undefined {
  const reach = new Map<string, { branches: number; distance: number }>();
  const adjacency = buildAdjacency(graph);
  for (const start of new Set(branchStarts)) {
    for (const [id, distance] of fanInsReachableFrom(graph, adjacency, start)) {
      const seen = reach.get(id);
      reach.set(id, { branches: (seen?.branches ?? 0) + 1, distance: Math.min(seen?.distance ?? Infinity, distance) });
    }
  }
  const ranked = [...reach.entries()].sort(([a, x], [b, y]) => y.branches - x.branches || x.distance - y.distance || (a < b ? -1 : a > b ? 1 : 0));
  const best = ranked[0];
  return best ? { continueAt: best[0], stopAt: new Set(reach.keys()) } : undefined;
}

function fanInsReachableFrom(graph: Graph, adjacency: Adjacency, start: string): Map<string, number> {
  const found = new Map<string, number>();
  const maxDepth = graph.nodes.size;
  const seen = new Set<string>();
  let frontier: Array<{ id: string; depth: number }> = [{ id: start, depth: 0 }];
  for (let distance = 0; frontier.length > 0; distance++) {
    const next: typeof frontier = [];
    for (const { id, depth } of frontier) {
      const key = `${depth}:${id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const node = graph.nodes.get(id);
      if (!node) continue;
      const type = resolveHandlerType(node);
      let onward = depth;
      if (type === 'parallel.fan_in') {
        if (depth === 0) {
          if (!found.has(id)) found.set(id, distance);
          continue;
        }
        onward = depth - 1;
      } else if (type === 'parallel') {
        onward = depth + 1;
      }
      if (onward > maxDepth) continue;
      for (const edge of adjacency.outgoing.get(id) ?? []) next.push({ id: edge.to, depth: onward });
    }
    frontier = next;
  }
  return found;
}
