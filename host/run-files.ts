// Extension side (Node): reads a run directory into graph-view messages, for "Open run…" on a
// finished run and for the visit files a trace row asks for. Never bundled into the webview.
import type { Graph } from '../engine/model/graph';
import type { TraceRecord } from '../engine/runtime/events';
import type { VisitFiles } from '../engine/runtime/workspace-snapshot';
import type { GraphStateMessage, NodeRunState, RunStatus, TakenEdge, VisitArtifactsMessage } from './protocol/webview';
import type { VisitTarget } from '../engine/runtime/rerun';
import { RunReader } from './run-directory/run-reader';

export function traceEntriesMessage(runDirectory: string): { type: 'traceEntries'; entries: TraceRecord[]; replace: true } {
  return { type: 'traceEntries', entries: new RunReader(runDirectory).trace(), replace: true };
}

/** The visit's records, the files it changed in the workspace and the artifacts it stored, for the trace panel. */
export function visitArtifactsMessage(runDirectory: string, iteration: number, nodeId: string, visit = 1): VisitArtifactsMessage {
  const reader = new RunReader(runDirectory);
  const named = { iteration, nodeId, visit };
  const files = reader.visitSnapshots(named);
  const store = files && reader.store();
  const artifacts = reader.visitArtifacts(named);
  return {
    type: 'visitArtifacts',
    iteration,
    nodeId,
    ...(visit > 1 ? { visit } : {}),
    ...(files && store ? { fileChanges: store.changes(files.before, files.after) } : {}),
    ...(artifacts.length > 0 ? { artifacts } : {}),
    ...reader.visitRecords(named),
  };
}

/** The workspace snapshots around a main-walk visit (the `visit`-th of its node in that iteration), when the run took them. */
export function visitSnapshots(runDirectory: string, iteration: number, nodeId: string, visit = 1): VisitFiles | undefined {
  return new RunReader(runDirectory).visitSnapshots({ iteration, nodeId, visit });
}

/** A visit as the trace panel names it (iteration, node, visit within the iteration) as `resume --from` names it: NODE@N across the run. */
export function rerunTarget(runDirectory: string, iteration: number, nodeId: string, visit = 1): VisitTarget | undefined {
  const found = new RunReader(runDirectory).visitRecord({ iteration, nodeId, visit });
  return found ? { nodeId, visit: found.visit } : undefined;
}

/**
 * The graph state a finished run leaves, rebuilt from its trace: each node's last status, visits
 * and iteration; an edge counts as taken when one visit follows another along it. Between two
 * nodes joined by several edges, the one labelled with the outcome's preferred label wins.
 */
export function graphStateFromTrace(graph: Graph, records: readonly TraceRecord[], runStatus: RunStatus): GraphStateMessage {
  const nodes: Record<string, NodeRunState> = {};
  const taken = new Map<number, TakenEdge>();
  const walk = records.filter((record) => record.scope === undefined);
  walk.forEach((record, i) => {
    const visits = (nodes[record.node_id]?.visits ?? 0) + 1;
    nodes[record.node_id] = { status: record.status, visits, iteration: record.iteration, ...(record.attempt ? { lastAttempt: record.attempt } : {}) };
    const next = walk[i + 1];
    if (!next) return;
    const edges = graph.edges.filter((edge) => edge.from === record.node_id && edge.to === next.node_id);
    const edge = edges.find((candidate) => record.preferred_label && candidate.attributes.get('label')?.value === record.preferred_label) ?? edges[0];
    if (edge) taken.set(edge.index, { index: edge.index, status: record.status, traversals: (taken.get(edge.index)?.traversals ?? 0) + 1 });
  });
  const last = walk[walk.length - 1];
  return { type: 'graphState', runStatus, iteration: last?.iteration ?? 0, activeNode: null, currentEdge: null, nodes, takenEdges: [...taken.values()] };
}
