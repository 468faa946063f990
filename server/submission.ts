import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { READ_LIMITS, readFileChecked } from '../engine/io/read-file-checked';
import type { Diagnostic } from '../engine/model/diagnostics';
import { HttpError, type Submission } from '../host/protocol/serve-api';
import { launchServed } from './launch-served';
import type { Execution, Launcher } from './pipeline-server';
import { launchOnRestate } from './restate-relay';
import type { Roots } from './roots';
import type { ServedRun, ServedRunSpec } from './served-run';
import type { CheckedSubmission } from './submission-check';
import type { SubmissionChecker } from './submission-checker';
import type { QueuedSubmission } from './queued-submissions';
import { writeServedMarker } from '../engine/runtime/run-markers';

/** A validated submission: what its run is, what validation warned about, and how it starts (now, or when its turn comes). */
export interface PreparedSubmission {
  readonly spec: ServedRunSpec;
  readonly warnings: readonly Diagnostic[];
  /** Starts the run walking, here or on Restate; a refusal is an HttpError (422, 502). */
  readonly launch: (run: ServedRun) => Promise<void>;
  /** What the server's queue keeps of it while it waits for a slot. */
  readonly queued: QueuedSubmission;
}

/**
 * A client's submission, from its body to a run ready to start: the pipeline and cwd under the roots,
 * the source validated by `checker` (off the event loop). Every refusal is an HttpError; a pipeline
 * with errors is refused here (422), before it could wait in the queue.
 */
export async function prepareSubmission(submission: Submission, launcher: Launcher, checker: SubmissionChecker): Promise<PreparedSubmission> {
  const { roots } = launcher;
  const cwd = workingDirectory(roots, submission.cwd ?? roots.primary);
  const { pipeline, params } = submission;
  const { source, sourcePath } = pipeline.kind === 'path' ? readPipeline(roots.resolve(pipeline.path, cwd, 'pipeline')) : { source: pipeline.dot, sourcePath: undefined };
  return preparePipeline({ id: crypto.randomUUID(), createdAt: new Date().toISOString(), source, ...(sourcePath ? { sourcePath } : {}), cwd, params }, launcher, checker);
}

/**
 * A submission an earlier server queued, at its turn: checked again as this server would check it
 * now (its cwd under today's roots, its source — as it was submitted — validated).
 */
export async function prepareQueued(queued: QueuedSubmission, launcher: Launcher, checker: SubmissionChecker): Promise<PreparedSubmission> {
  return preparePipeline({ ...queued, cwd: workingDirectory(launcher.roots, queued.cwd) }, launcher, checker);
}

/** The run a queued submission becomes, before it is checked. */
export function queuedSpec(queued: QueuedSubmission, launcher: Launcher): ServedRunSpec {
  const { id, source, sourcePath, cwd, createdAt } = queued;
  return { id, source, ...(sourcePath ? { sourcePath } : {}), cwd, logsRoot: path.join(launcher.logsRoot, id), attachLeaseMs: launcher.attachLeaseMs, createdAt, continuable: launcher.walkers.kind === 'here' };
}

async function preparePipeline(queued: QueuedSubmission, launcher: Launcher, checker: SubmissionChecker): Promise<PreparedSubmission> {
  const { source, sourcePath, params } = queued;
  const { roots, walkers } = launcher;
  const checked = await checker.check({ source, ...(sourcePath ? { sourcePath } : {}), params, roots: roots.dirs });
  const errors = checked.diagnostics.filter((d) => d.severity === 'error');
  if (!checked.graph || errors.length > 0) throw new HttpError(422, `${sourcePath ? path.basename(sourcePath) : 'the pipeline'} has ${errors.length} error(s); the pipeline was not started`, { diagnostics: checked.diagnostics });
  const spec = queuedSpec(queued, launcher);
  const launch = async (run: ServedRun): Promise<void> => {
    // The run's directory says it is this server's run (one row in VS Code's Runs view when the server is connected).
    if (walkers.kind === 'here') {
      launchHere(run, params, roots, checked, walkers.execution());
      writeServedMarker(spec.logsRoot, { served_id: spec.id });
      return;
    }
    // Said before Restate has the run: a server killed once it was submitted follows it again at its start.
    writeServedMarker(spec.logsRoot, { served_id: spec.id, restate_ingress: walkers.ingress.href });
    await launchOnRestate(run, params, roots.dirs, walkers.ingress);
  };
  return { spec, warnings: checked.diagnostics, launch, queued };
}

/** A submission's working directory: an existing directory under the roots. */
function workingDirectory(roots: Roots, given: string): string {
  const cwd = roots.resolve(given, roots.primary, 'cwd');
  if (!fs.statSync(cwd).isDirectory()) throw new HttpError(400, `cwd ${cwd} is not a directory`);
  return cwd;
}

function launchHere(run: ServedRun, params: Readonly<Record<string, string>>, roots: Roots, checked: CheckedSubmission, { backend, defaultMaxParallel, sandbox, runner }: Execution): void {
  // Only the backend: a submitted run's gates are asked over HTTP alone.
  const admission = launchServed(run, checked, { backend, params, files: roots.scope, ...(defaultMaxParallel === undefined ? {} : { defaultMaxParallel }), ...(sandbox ? { sandbox } : {}), ...(runner ? { runner } : {}) });
  if (admission.kind === 'refused') throw new HttpError(422, admission.reason, { diagnostics: admission.diagnostics });
}

/** A pipeline file named by a submission: a FIFO or an oversized file is refused, not waited on. */
function readPipeline(file: string): { readonly source: string; readonly sourcePath: string } {
  try {
    return { source: readFileChecked(file, READ_LIMITS.pipeline), sourcePath: file };
  } catch (error) {
    throw new HttpError(400, (error as Error).message);
  }
}
