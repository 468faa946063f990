// Extension side (Node): reads a run directory into graph-view messages, for "Open run…" on a
// finished run and for the visit files a trace row asks for. Never bundled into the webview.
import fs from 'node:fs';
import path from 'node:path';
import type { Graph } from '../engine/model/graph';
import type { TraceRecord } from '../engine/runtime/events';
import { RunDirectory, readTrace } from '../engine/runtime/run-directory';
import type { VisitFiles } from '../engine/runtime/workspace-snapshot';
import { existingWorkspaceStore } from '../engine/runtime/workspace-snapshot';
import type { GraphStateMessage, NodeRunState, RunStatus, TakenEdge, VisitArtifactsMessage } from './protocol/webview';
import { readFileHead } from '../engine/io/read-file-checked';
import { numberedVisits } from '../engine/runtime/numbered-visits';
import type { VisitTarget } from '../engine/runtime/rerun';

/** Larger files are cut: the panel shows text, and megabytes of it help no one. */
const MAX_FILE_BYTES = 1_000_000;
const VISIT_FILES = { prompt: 'prompt.md', response: 'response.md', status: 'status.json' } as const;

export function traceEntriesMessage(runDirectory: string): { type: 'traceEntries'; entries: TraceRecord[]; replace: true } {
  return { type: 'traceEntries', entries: readTrace(runDirectory), replace: true };
}

/** The visit's files from its own directory (`iteration_N/<node>/`, `iteration_N/<node>@K/`); a first visit falls back to the flat stage directory. */
export function visitArtifactsMessage(runDirectory: string, iteration: number, nodeId: string, visit = 1): VisitArtifactsMessage {
  const directory = new RunDirectory(runDirectory);
  const candidates = [directory.visitStageDir(iteration, nodeId, visit), ...(visit === 1 ? [directory.stageDir(nodeId)] : [])];
  const stageDir = candidates.find((dir) => fs.existsSync(dir));
  const message: { -readonly [K in keyof VisitArtifactsMessage]: VisitArtifactsMessage[K] } = { type: 'visitArtifacts', iteration, nodeId, ...(visit > 1 ? { visit } : {}) };
  const files = visitSnapshots(runDirectory, iteration, nodeId, visit);
  const store = files && existingWorkspaceStore(runDirectory, runDirectory);
  if (files && store) message.fileChanges = store.changes(files.before, files.after);
  if (!stageDir) return message;
  for (const [field, file] of Object.entries(VISIT_FILES) as Array<[keyof typeof VISIT_FILES, string]>) {
    const text = readText(path.join(stageDir, file));
    if (text !== undefined) message[field] = text;
  }
  return message;
}

/** The workspace snapshots around a main-walk visit (the `visit`-th of its node in that iteration), when the run took them. */
export function visitSnapshots(runDirectory: string, iteration: number, nodeId: string, visit = 1): VisitFiles | undefined {
  const record = readTrace(runDirectory).find((r) => r.scope === undefined && r.iteration === iteration && r.node_id === nodeId && (r.visit ?? 1) === visit);
  return record?.files;
}

/** A visit as the trace panel names it (iteration, node, visit within the iteration) as `resume --from` names it: NODE@N across the run. */
export function rerunTarget(runDirectory: string, iteration: number, nodeId: string, visit = 1): VisitTarget | undefined {
  const found = numberedVisits(readTrace(runDirectory)).find(({ record }) => record.iteration === iteration && record.node_id === nodeId && (record.visit ?? 1) === visit);
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

function readText(file: string): string | undefined {
  try {
    const { text, omittedBytes } = readFileHead(file, MAX_FILE_BYTES);
    return omittedBytes > 0 ? `${text}\n… (${omittedBytes} more bytes in ${file})` : text;
  } catch {
    return undefined;
  }
}
