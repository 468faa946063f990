import { loadCheckpoint } from '../engine/runtime/run-directory';
import { READ_LIMITS, readFileChecked } from '../engine/io/read-file-checked';
import { listRuns } from '../host/run-directory/run-catalog';
import { RunReader } from '../host/run-directory/run-reader';
import type { RunSummary } from '../host/run-directory/run-summary';
import { ServedRun } from './served-run';
import { storedEvents } from './event-log';
import { runFile } from '../engine/runtime/run-layout';

/**
 * The runs an earlier server left under `logsRoot`, oldest first, as their run directories show
 * them: ended (success, fail, cancelled; with the events that server stored) or interrupted (the
 * server went away mid-walk). A run
 * another live engine walks is its engine's, and a directory that cannot be read is no run to
 * serve: both are left out.
 */
export function restoredRuns(logsRoot: string, attachLeaseMs: number): ServedRun[] {
  return listRuns(logsRoot)
    .reverse()
    .flatMap((summary) => {
      const run = restoredRun(summary, attachLeaseMs);
      return run ? [run] : [];
    });
}

function restoredRun(summary: RunSummary, attachLeaseMs: number): ServedRun | undefined {
  if (summary.status === 'unreadable' || summary.status === 'running') return undefined;
  const reader = new RunReader(summary.directory);
  let state;
  let source;
  try {
    state = loadCheckpoint(summary.directory);
    source = readFileChecked(reader.pipelineCopy, READ_LIMITS.pipeline);
  } catch {
    return undefined;
  }
  const run = new ServedRun({
    id: summary.servedId ?? summary.name,
    source,
    ...(state.sourcePath ? { sourcePath: state.sourcePath } : {}),
    cwd: state.cwd,
    logsRoot: summary.directory,
    attachLeaseMs,
    createdAt: state.startedAt,
  });
  run.restore({ status: summary.status, ...(summary.failureReason ? { failureReason: summary.failureReason } : {}), state, trace: reader.trace() });
  // The events the server that walked it stored when it ended; not those of an earlier walk of a run resumed since.
  const file = runFile(summary.directory, 'servedEvents');
  const stored = storedEvents(file);
  if (stored?.last.type === 'run:end' && stored.last.status === summary.status) run.log.adopt(file, stored.count);
  return run;
}
