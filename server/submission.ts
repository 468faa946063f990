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
import { ServedRun, type ServedRunSpec } from './served-run';
import type { CheckedSubmission } from './submission-check';
import type { SubmissionChecker } from './submission-checker';
import { writeServedMarker } from '../engine/runtime/run-markers';

export type Launched = { readonly run: ServedRun; readonly warnings: readonly Diagnostic[] };

/**
 * A client's submission, from its body to a started run: the pipeline and cwd under the roots, the
 * source validated by `checker` (off the event loop), then walked here or handed to Restate. Every
 * refusal is an HttpError; `stillAdmitted` is asked again once the validation is done.
 */
export async function startSubmission(submission: Submission, launcher: Launcher, checker: SubmissionChecker, stillAdmitted: () => void): Promise<Launched> {
  const { roots } = launcher;
  const cwd = roots.resolve(submission.cwd ?? roots.primary, roots.primary, 'cwd');
  if (!fs.statSync(cwd).isDirectory()) throw new HttpError(400, `cwd ${cwd} is not a directory`);
  const { pipeline, params } = submission;
  const { source, sourcePath } = pipeline.kind === 'path' ? readPipeline(roots.resolve(pipeline.path, cwd, 'pipeline')) : { source: pipeline.dot, sourcePath: undefined };
  const checked = await checker.check({ source, ...(sourcePath ? { sourcePath } : {}), params, roots: roots.dirs });
  stillAdmitted();
  const id = crypto.randomUUID();
  const spec = { id, source, ...(sourcePath ? { sourcePath } : {}), cwd, logsRoot: path.join(launcher.logsRoot, id), attachLeaseMs: launcher.attachLeaseMs };
  const launched = launcher.walkers.kind === 'restate' ? await submitToRestate(spec, params, roots, checked, launcher.walkers.ingress) : launchHere(spec, params, roots, checked, launcher.walkers.execution());
  // The run's directory says it is this server's run (one row in VS Code's Runs view when the server is connected).
  writeServedMarker(spec.logsRoot, id);
  return launched;
}

function launchHere(spec: ServedRunSpec, params: Readonly<Record<string, string>>, roots: Roots, checked: CheckedSubmission, { backend, defaultMaxParallel, sandbox, runner }: Execution): Launched {
  const run = new ServedRun(spec);
  // Only the backend: a submitted run's gates are asked over HTTP alone.
  const admission = launchServed(run, checked, { backend, params, files: roots.scope, ...(defaultMaxParallel === undefined ? {} : { defaultMaxParallel }), ...(sandbox ? { sandbox } : {}), ...(runner ? { runner } : {}) });
  if (admission.kind === 'refused') throw new HttpError(422, admission.reason, { diagnostics: admission.diagnostics });
  return { run, warnings: admission.warnings };
}

/** Validated here (a refusal is this request's 422), walked by the workers. */
async function submitToRestate(spec: ServedRunSpec, params: Readonly<Record<string, string>>, roots: Roots, checked: CheckedSubmission, ingress: URL): Promise<Launched> {
  const errors = checked.diagnostics.filter((d) => d.severity === 'error');
  if (!checked.graph || errors.length > 0) throw new HttpError(422, `the pipeline has ${errors.length} error(s); it was not submitted`, { diagnostics: checked.diagnostics });
  return { run: await launchOnRestate(spec, params, roots.dirs, ingress), warnings: checked.diagnostics };
}

/** A pipeline file named by a submission: a FIFO or an oversized file is refused, not waited on. */
function readPipeline(file: string): { readonly source: string; readonly sourcePath: string } {
  try {
    return { source: readFileChecked(file, READ_LIMITS.pipeline), sourcePath: file };
  } catch (error) {
    throw new HttpError(400, (error as Error).message);
  }
}
