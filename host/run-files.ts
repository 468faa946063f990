// Extension side (Node): reads a run directory into graph-view messages, for "Open run…" on a
// finished run and for the visit files a trace row asks for. Never bundled into the webview.
import type { TraceRecord } from '../engine/runtime/events';
import type { FileChange, VisitFiles } from '../engine/runtime/workspace-snapshot';
import type { GraphStateMessage, RunStatus, VisitArtifactsMessage } from './protocol/webview';
import { GraphStateTracker } from './view/graph-state';
import type { VisitTarget } from '../engine/runtime/rerun';
import { RunReader } from './run-directory/run-reader';

export function traceEntriesMessage(runDirectory: string): { type: 'traceEntries'; entries: TraceRecord[]; replace: true } {
  return { type: 'traceEntries', entries: new RunReader(runDirectory).trace(), replace: true };
}

/** The visit's records, the files it changed in the workspace and the artifacts it stored, for the trace panel. */
export function visitArtifactsMessage(runDirectory: string, iteration: number, nodeId: string, visit = 1): VisitArtifactsMessage {
  const reader = new RunReader(runDirectory);
  const named = { iteration, nodeId, visit };
  const artifacts = reader.visitArtifacts(named);
  return {
    type: 'visitArtifacts',
    iteration,
    nodeId,
    ...(visit > 1 ? { visit } : {}),
    ...visitFileChanges(reader, reader.visitSnapshots(named)),
    ...(artifacts.length > 0 ? { artifacts } : {}),
    ...reader.visitRecords(named),
  };
}

/** What a visit did to the workspace; nothing when the run holds no snapshots for it, or ids that are not snapshots. */
function visitFileChanges(reader: RunReader, files: VisitFiles | undefined): { fileChanges?: FileChange[] } {
  const store = files && reader.store();
  try {
    return files && store ? { fileChanges: store.changes(files.before, files.after) } : {};
  } catch {
    return {};
  }
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

/** The graph state a run's recorded visits leave: each node's last status, visits and iteration, and the edges the trace says the walk took. */
export function graphStateFromTrace(records: readonly TraceRecord[], runStatus: RunStatus): GraphStateMessage {
  const tracker = new GraphStateTracker();
  tracker.replay(records, runStatus);
  return { type: 'graphState', ...tracker.snapshot() };
}
