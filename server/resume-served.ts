import { resumeRunWith } from '../engine/runtime/launch';
import { runPipeline } from '../engine/runtime/runner';
import { isResumable } from '../host/run-directory/run-summary';
import { HttpError } from '../host/protocol/serve-api';
import type { Execution, Launcher } from './pipeline-server';
import { ServedRun } from './served-run';

/**
 * `POST /pipelines/{id}/resume`: an interrupted or cancelled run walked on from its last checkpoint,
 * through the CLI's resume (`resumeRun`'s checks: the run lock, the pipeline's hash, the working
 * directory it worked in, the orphaned commands of the interrupted node killed first). Its working
 * directory must lie under the server's roots. Resolves once the walk has started, with the run that
 * now serves it; a refusal is a 409.
 */
export async function resumeServed(previous: ServedRun, launcher: Launcher, into = new ServedRun({ ...previous.spec, createdAt: previous.createdAt })): Promise<ServedRun> {
  const { id } = previous.spec;
  if (previous.status === 'queued' || !isResumable(previous.status)) throw new HttpError(409, `pipeline ${id} is ${previous.status}: only an interrupted or cancelled run resumes`);
  const execution = walkedHere(launcher, id, 'resume');
  return walkServed(into, execution, servedWorkingDirectory(previous, launcher), launcher);
}

/** The turn of a run an earlier server held an answer for (`into`, queued): its walk goes on from its checkpoint and its gate gets the answer. */
export function resumeWithHeldAnswer(previous: ServedRun, launcher: Launcher, into: ServedRun): void {
  into.dequeue();
  Promise.resolve()
    .then(() => resumeServed(previous, launcher, into))
    .then(
      () => into.deliverHeldAnswer(),
      (error: Error) => into.endUnstarted('fail', `not resumed with the answer held for its gate: ${error.message}`),
    );
}

/** The execution of a server that walks its runs itself; 409 for one that hands them to Restate. */
export function walkedHere(launcher: Launcher, id: string, what: string): () => Execution {
  if (launcher.walkers.kind !== 'here') throw new HttpError(409, `pipeline ${id}: this server hands its runs to Restate, whose workers ${what} them`);
  return launcher.walkers.execution;
}

/** The working directory a run of this server goes on in: the one it worked in, which must lie under the server's roots. */
export function servedWorkingDirectory(run: ServedRun, launcher: Launcher): string {
  return launcher.roots.resolve(run.spec.cwd, run.spec.cwd, "the run's working directory");
}

/** Walks the run directory `run.spec.logsRoot` on from its checkpoint, served as `run`; resolves once the walk has started (a refusal is a 409). */
export async function walkServed(run: ServedRun, execution: () => Execution, cwd: string, launcher: Launcher): Promise<ServedRun> {
  const { spec } = run;
  const { backend, defaultMaxParallel, sandbox, runner } = execution();
  let walking = (): void => undefined;
  const started = new Promise<undefined>((resolve) => (walking = () => resolve(undefined)));
  const resumed = resumeRunWith(
    spec.logsRoot,
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
