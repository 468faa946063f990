import fs from 'node:fs';
import path from 'node:path';
import { loadCheckpoint } from '../engine/runtime/run-directory';
import { READ_LIMITS, readFileChecked } from '../engine/io/read-file-checked';
import { readServedMarker } from '../engine/runtime/run-markers';
import { listRuns } from '../host/run-directory/run-catalog';
import { RunReader } from '../host/run-directory/run-reader';
import { summarizeRun, type RunSummary } from '../host/run-directory/run-summary';
import type { Launcher } from './pipeline-server';
import { followOnRestate } from './restate-relay';
import { ServedRun } from './served-run';
import { storedEvents } from './event-log';
import { hasCheckpoint, runFile } from '../engine/runtime/run-layout';

/**
 * The runs an earlier server left under the launcher's logs root, oldest first, as their run
 * directories show them: ended (success, fail, cancelled; with the events that server stored) or
 * interrupted (the server went away mid-walk). A run that server handed to Restate (this server's
 * ingress, by its `served.json`) and whose end it did not store is followed on Restate again, from
 * the first event its workers wrote. A run another live engine walks is its engine's, and a directory
 * that cannot be read is no run to serve: both are left out.
 */
export function restoredRuns(launcher: Launcher): ServedRun[] {
  return listRuns(launcher.logsRoot)
    .reverse()
    .flatMap((summary) => {
      const run = restoredRun(summary, launcher);
      return run ? [run] : [];
    });
}

/** How often the run directories of runs on Restate that no worker had started are looked at. */
const AWAIT_START_MS = 1000;

/**
 * The runs an earlier server handed to this server's Restate that no worker had started (their
 * first step has not written their checkpoint): each is handed to `follow` once a worker has,
 * followed on Restate. Returns what stops looking.
 */
export function awaitStartsOnRestate(launcher: Launcher, follow: (run: ServedRun) => void): () => void {
  let awaited = awaitedOnRestate(launcher);
  if (awaited.length === 0) return () => undefined;
  const timer = setInterval(() => {
    awaited = awaited.filter((directory) => {
      if (!hasCheckpoint(directory)) return true;
      const run = restoredRun(summarizeRun(directory), launcher);
      if (run) follow(run);
      return false;
    });
    if (awaited.length === 0) clearInterval(timer);
  }, AWAIT_START_MS);
  timer.unref();
  return () => clearInterval(timer);
}

function awaitedOnRestate(launcher: Launcher): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(launcher.logsRoot, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(launcher.logsRoot, entry.name))
    .filter((directory) => !hasCheckpoint(directory) && onThisRestate(directory, launcher));
}

function restoredRun(summary: RunSummary, launcher: Launcher): ServedRun | undefined {
  if (summary.status === 'unreadable') return undefined;
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
    attachLeaseMs: launcher.attachLeaseMs,
    createdAt: state.startedAt,
    continuable: launcher.walkers.kind === 'here',
  });
  // The events the server that walked it stored when it ended; not those of an earlier walk of a run resumed since.
  const file = runFile(summary.directory, 'servedEvents');
  const stored = storedEvents(file);
  const storedEnd = stored?.last.type === 'run:end' && stored.last.status === summary.status;
  const ingress = onThisRestate(summary.directory, launcher);
  if (ingress && !storedEnd) {
    followOnRestate(run, ingress);
    return run;
  }
  if (summary.status === 'running') return undefined;
  run.restore({ status: summary.status, ...(summary.failureReason ? { failureReason: summary.failureReason } : {}), state, trace: reader.trace() });
  if (storedEnd && stored) run.log.adopt(file, stored.count);
  return run;
}

/**
 * The ingress a run was submitted to, when it is this server's: a run directory is only a record
 * (it may have been committed, or forged), so the run is followed only through the ingress this
 * server was started with, under the workflow key that is its directory's name.
 */
function onThisRestate(directory: string, launcher: Launcher): URL | undefined {
  const { walkers } = launcher;
  if (walkers.kind !== 'restate') return undefined;
  const marker = readServedMarker(directory);
  return marker?.restate_ingress === walkers.ingress.href && marker.served_id === path.basename(directory) ? walkers.ingress : undefined;
}
