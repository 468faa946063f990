import type { FileScope } from '../engine/io/file-scope';
import type { CodergenBackend } from '../engine/runtime/backend';
import type { Interviewer } from '../engine/runtime/interviewer';
import type { RunnerIdentity } from '../engine/runtime/run-directory';
import type { Admission } from '../engine/runtime/launch';
import type { SandboxRequest } from '../engine/model/sandbox-setting';
import { admitPrepared, runAdmitted } from '../engine/runtime/launch';
import { FirstAnswerInterviewer } from './first-answer-interviewer';
import type { ServedRun } from './served-run';
import type { CheckedSubmission } from './submission-check';

export interface ServedLaunchOptions {
  readonly backend: CodergenBackend;
  readonly params: Readonly<Record<string, string>>;
  readonly defaultMaxParallel?: number;
  readonly sandbox?: SandboxRequest;
  /** Asked besides the run's HTTP clients (the CLI's terminal); the first answer wins. */
  readonly interviewer?: Interviewer;
  /** Cancels the run besides `POST …/cancel` (the CLI's SIGINT). */
  readonly signal?: AbortSignal;
  /** Ledger §28: the front end that started the run, for the manifest. */
  readonly runner?: RunnerIdentity;
  /** The files the run may load (a server's roots); absent: any. */
  readonly files?: FileScope;
}

/** Admits the served run's source, prepared as `checkSubmission` does, and, when admitted, starts it; the admission phases land in its event log. */
export function launchServed(run: ServedRun, checked: CheckedSubmission, options: ServedLaunchOptions): Admission {
  const { source, sourcePath, cwd, logsRoot } = run.spec;
  const files = options.files ? { files: options.files } : {};
  const sandbox = options.sandbox ? { sandbox: options.sandbox } : {};
  const admission = admitPrepared(checked, { events: run.events, backend: options.backend, logsRoot, cwd, params: options.params, ...(sourcePath ? { sourcePath } : {}), ...files, ...sandbox });
  if (admission.kind === 'refused') return admission;
  // A run held by an attached debugger must let go when the CLI is interrupted too.
  options.signal?.addEventListener('abort', () => run.cancel(), { once: true });
  run.start(
    runAdmitted({
      graph: admission.graph,
      source,
      cwd,
      logsRoot,
      // One id for the run: the server's, in the engine's checkpoint and events too.
      runId: run.spec.id,
      params: options.params,
      backend: options.backend,
      interviewer: options.interviewer ? new FirstAnswerInterviewer([options.interviewer, run.interviewer]) : run.interviewer,
      events: run.events,
      controller: run.hold,
      signal: options.signal ? AbortSignal.any([options.signal, run.signal]) : run.signal,
      ...(options.defaultMaxParallel === undefined ? {} : { defaultMaxParallel: options.defaultMaxParallel }),
      ...sandbox,
      ...(options.runner ? { runner: options.runner } : {}),
      ...files,
    }),
  );
  return admission;
}
