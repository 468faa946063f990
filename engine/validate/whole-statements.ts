// Lint of a text with syntax errors: what the statements read whole prove, and nothing more.
import type { Diagnostic } from '../model/diagnostics';
import type { Graph } from '../model/graph';
import { buildAdjacency } from '../model/graph';
import type { SourceSpan } from '../model/source';
import type { UnreadSpan } from '../parse/dot-grammar';
import { breadthFirst } from './breadth-first';

const overlaps = (a: SourceSpan, b: SourceSpan): boolean => a.start < b.end && b.start < a.end;

/**
 * The diagnostics of a partly read graph that the broken statements cannot change. A broken
 * statement reached the graph only as the nodes it mentions ("touched"; every node when the text
 * after an unclosed string was read inside out), so it can change what is
 * said of them and, through the edges it may hold, the shape of the graph downstream of them. Kept:
 * a finding that rests on its subject's own statements (`restsOnStatement`: an unknown attribute,
 * a bad value) unless its subject is touched; a finding about the graph's shape (reachability,
 * cycles, data flow) unless its subject lies downstream of a touched node; never a finding about
 * the whole graph (no start node, no exit: the broken statement may hold it), nor one inside a
 * broken statement. As TypeScript keeps semantic errors beside a syntax error.
 */
export function provenByWholeStatements(diagnostics: readonly Diagnostic[], graph: Graph, unread: readonly UnreadSpan[], restsOnStatement: (rule: string) => boolean): Diagnostic[] {
  const inUnread = (span: SourceSpan): boolean => unread.some((broken) => overlaps(span, broken));
  // Garbled text may mention any node.
  const garbled = unread.some((span) => span.garbled);
  const touched = new Set<string>();
  for (const node of graph.nodes.values()) {
    if (garbled || inUnread(node.idRange) || node.declarations.some(inUnread) || node.references.some(inUnread)) touched.add(node.id);
  }
  const { outgoing } = buildAdjacency(graph);
  const downstream = breadthFirst(touched, (id) => (outgoing.get(id) ?? []).map((edge) => edge.to));
  const graphAnchor = (graph.nameRange ?? graph.range).start;
  return diagnostics.filter((d) => {
    if (!d.range || inUnread({ start: d.range.start.offset, end: Math.max(d.range.end.offset, d.range.start.offset + 1) })) return false;
    const subjects = [...(d.nodeId !== undefined ? [d.nodeId] : []), ...(d.edge ? [d.edge.from, d.edge.to] : [])];
    if (subjects.length === 0) return d.range.start.offset !== graphAnchor;
    const changeable = restsOnStatement(d.rule) ? touched : downstream;
    return !subjects.some((id) => changeable.has(id));
  });
}
