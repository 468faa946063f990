/**
 * The ids reachable from `starts` (themselves included), in breadth-first order: `next` names an id's
 * neighbours. A Set's iteration visits what is added while it runs, so the set is its own queue.
 */
export function breadthFirst(starts: Iterable<string>, next: (id: string) => Iterable<string>): Set<string> {
  const reached = new Set(starts);
  for (const id of reached) for (const neighbour of next(id)) reached.add(neighbour);
  return reached;
}
