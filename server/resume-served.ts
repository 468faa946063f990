import { resumeRunWith } from '../engine/runtime/launch';
import { runPipeline } from '../engine/runtime/runner';
import { isResumable } from '../host/run-directory/run-summary';
import { HttpError } from '../host/protocol/serve-api';
import type { Launcher } from './pipeline-server';
import { ServedRun } from './served-run';

/**
 * `POST /pipelines/{id}/resume`: an interrupted or cancelled run walked on from its last checkpoint,
 * through the CLI's resume (`resumeRun`'s checks: the run lock, the pipeline's hash, the working
 * directory it worked in, the orphaned commands of the interrupted node killed first). Its working
 * directory must lie under the server's roots. Resolves once the walk has started, with the run that
 * now serves it; a refusal is a 409.
 */
export async function resumeServed(previous: ServedRun, launcher: Launcher): Promise<ServedRun> {
  const { id } = previous.spec;
  if (previous.status === 'queued' || !isResumable(previous.status)) throw new HttpError(409, `pipeline ${id} is ${previous.status}: only an interrupted or cancelled run resumes`);
  if (launcher.walkers.kind !== 'here') throw new HttpError(409, `pipeline ${id}: this server hands its runs to Restate, whose workers resume them`);
  const cwd = launcher.roots.resolve(previous.spec.cwd, previous.spec.cwd, "the run's working directory");
  const run = new ServedRun({ ...previous.spec, createdAt: previous.createdAt });
  const { backend, defaultMaxParallel, sandbox, runner } = launcher.walkers.execution();
  let walking = (): void => undefined;
  const started = new Promise<undefined>((resolve) => (walking = () => resolve(undefined)));
  const resumed = resumeRunWith(
    previous.spec.logsRoot,
    {
      backend,
      interviewer: run.interviewer,
      events: run.events,
      controller: run.hold,
      signal: run.signal,
      cwd,
      files: launcher.roots.scope,
      ...(defaultMaxParallel === undefined ? {} : { defaultMaxParallel }),
      ...(sandbox ? { sandbox } : {}),
      ...(runner ? { runner } : {}),
    },
    (options) => {
      walking();
      return runPipeline(options);
    },
  );
  const refused = await Promise.race([started, resumed]);
  if (refused?.kind === 'refused') throw new HttpError(409, refused.reason, { diagnostics: refused.diagnostics });
  run.start(
    resumed.then((launch) => {
      if (launch.kind === 'refused') throw new Error(launch.reason);
      return launch.result;
    }),
  );
  return run;
}
