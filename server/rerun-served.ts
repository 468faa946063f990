import path from 'node:path';
import { branchFromVisit } from '../engine/runtime/rerun';
import { writeServedMarker } from '../engine/runtime/run-markers';
import { describeChangesElsewhere } from '../host/file-changes';
import { rerunTarget } from '../host/run-files';
import { HttpError } from '../host/protocol/serve-api';
import type { Infer } from '../host/protocol/guards';
import type { rerunRequest, rerunStarted } from '../host/protocol/serve-schemas';
import type { Launcher } from './pipeline-server';
import { servedWorkingDirectory, walkedHere, walkServed } from './resume-served';
import { ServedRun } from './served-run';

type RerunRequest = Infer<typeof rerunRequest>;
type RerunOrigin = Infer<typeof rerunStarted>['rerun'];

/**
 * `POST /pipelines/{id}/rerun`: "Re-run from here" — `attractor resume --from`'s time travel with its
 * guarantees (engine/runtime/rerun.ts, as VS Code and the CLI do it): a new branch run beside this
 * one from before the chosen visit, with the run state and the working directory of then; the run
 * itself stays as it is. Changes in the working directory the run did not make refuse it (409,
 * listed, nothing done) unless the caller says to discard them, as --discard-changes does. The
 * branch is then walked here as a run of this server, named by its run directory.
 */
export async function rerunServed(previous: ServedRun, request: RerunRequest, launcher: Launcher): Promise<{ run: ServedRun; rerun: RerunOrigin }> {
  const { id, logsRoot } = previous.spec;
  if (previous.status === 'running' || previous.status === 'queued') throw new HttpError(409, `pipeline ${id} is ${previous.status}: only a run that ended or was interrupted re-runs from a visit`);
  const execution = walkedHere(launcher, id, 're-run');
  const cwd = servedWorkingDirectory(previous, launcher);
  const target = rerunTarget(logsRoot, request.iteration, request.node, request.visit);
  if (!target) throw new HttpError(404, `pipeline ${id} has no visit of ${request.node} in iteration ${request.iteration} (visit ${request.visit ?? 1})`);
  const branch = await branchFromVisit(logsRoot, target, { cwd, discardChanges: request.discardChanges === true });
  if (branch.kind === 'refused') throw new HttpError(409, branch.reason);
  if (branch.kind === 'changed-elsewhere') {
    const reason = `${describeChangesElsewhere(branch.cwd, branch.changes)}\nNothing was changed. Keep them elsewhere first, or re-run with discardChanges (they stay recoverable with \`attractor undo\`).`;
    throw new HttpError(409, reason, { cwd: branch.cwd, changes: branch.changes });
  }
  const branchId = path.basename(branch.directory);
  writeServedMarker(branch.directory, { served_id: branchId });
  const { createdAt: _createdAt, ...spec } = previous.spec;
  const run = await walkServed(new ServedRun({ ...spec, id: branchId, logsRoot: branch.directory }), execution, cwd, launcher);
  const overBudget = branch.restore?.overBudget ?? [];
  const restore = branch.restore
    ? { discarded: branch.restore.discarded.length, undo: branch.directory, ...(overBudget.length > 0 ? { overBudget: [...overBudget] } : {}) }
    : { workspaceNotRestored: branch.workspaceNotRestored ?? 'the run took no workspace snapshot then' };
  return { run, rerun: { from: id, nodeId: branch.nodeId, visit: branch.visit, ...restore } };
}
