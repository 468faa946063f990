import path from 'node:path';
import { isProviderName, providerNames } from '../engine/llm/types';
import { formatDuration } from '../engine/model/duration';
import type { CodergenBackend } from '../engine/runtime/backend';
import { ConsoleInterviewer } from '../engine/runtime/console-interviewer';
import { EventBus } from '../engine/runtime/events';
import type { RunEvent } from '../engine/runtime/events';
import { QueueInterviewer, type Interviewer } from '../engine/runtime/interviewer';
import { isMaxParallel } from '../engine/runtime/join-policy';
import type { SandboxRequest } from '../engine/model/sandbox-setting';
import { autoSandbox, isSandboxSetting, namedSandbox, sandboxSettings } from '../engine/model/sandbox-setting';
import type { LaunchResult } from '../engine/runtime/launch';
import { launchPipelineFile, resumeRun } from '../engine/runtime/launch';
import type { RunnerIdentity } from '../engine/runtime/run-directory';
import { engineCommit, engineVersion } from '../engine/runtime/version';
import { formatDiagnostic } from '../engine/model/diagnostic-format';
import { launchServedFile, type ListenTarget } from '../server';
import { chooseBackend, type BackendRequest } from '../host/backends';
import { ATTACH_LEASE_SECONDS, DEFAULT_ATTACH_LEASE_SECONDS } from '../host/serve/serve-defaults';
import type { ChangedElsewhere } from '../engine/runtime/rerun';
import { branchFromVisit, undoBranchRestore } from '../engine/runtime/rerun';
import { describeChangesElsewhere, quotePath } from '../host/file-changes';
import { parseVisitTarget } from './visit-files';
import { RunReader } from '../host/run-directory/run-reader';
import { describeRunEnd } from '../engine/runtime/run-status';
import { loadCustomHandlers } from './custom-handlers';

/** What `run` and `resume` share: the backend and the run-level defaults. */
export interface ExecutionOptions {
  readonly scripted?: string;
  readonly handlers?: string[];
  readonly json?: boolean;
  readonly defaultModel?: string;
  readonly defaultProvider?: string;
  readonly maxParallel?: string;
  readonly sandbox?: string;
}

export interface RunCommandOptions extends ExecutionOptions {
  readonly param?: string[];
  readonly cwd?: string;
  readonly logsRoot?: string;
  readonly serve?: string;
  readonly attachLease?: string;
}

/** Exit codes of the conformance README: 0 success, 1 failed, 2 refused to start. */
const EXIT = { success: 0, fail: 1, cancelled: 1, refused: 2 } as const;

export function parseParams(pairs: readonly string[] = []): Record<string, string> {
  const params: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--param expects key=value, got "${pair}"`);
    params[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return params;
}

class UsageError extends Error {}

/**
 * The backend, interviewer, fan-out default, sandbox and runner identity of a run or resume, from
 * its options; `sandbox` when no --sandbox is given.
 */
export function execution(options: ExecutionOptions, env: NodeJS.ProcessEnv, sandbox: SandboxRequest = autoSandbox): { backend: CodergenBackend; interviewer: Interviewer; defaultMaxParallel?: number; sandbox: SandboxRequest; runner: RunnerIdentity } {
  const defaultMaxParallel = parseMaxParallel(options.maxParallel);
  const parallel = { ...(defaultMaxParallel === undefined ? {} : { defaultMaxParallel }), sandbox: options.sandbox === undefined ? sandbox : parseSandbox(options.sandbox) };
  // --scripted answers the gates from its script too; without it the LLM providers run (keys and base URLs from the environment).
  const request: BackendRequest = options.scripted ? { backend: 'scripted', scripted: options.scripted, gateAnswers: 'script' } : { backend: 'llm', ...defaultModelOptions(options) };
  const chosen = chooseBackend(request, { env });
  if (!chosen.ok) throw new UsageError(chosen.message);
  const { choice } = chosen;
  return {
    backend: choice.create(),
    interviewer: options.scripted ? new QueueInterviewer(choice.humanAnswers) : new ConsoleInterviewer(),
    ...parallel,
    runner: { version: engineVersion, commit: engineCommit, provider: choice.provider },
  };
}

function defaultModelOptions(options: ExecutionOptions): Pick<BackendRequest, 'defaultModel' | 'defaultProvider'> {
  const { defaultModel, defaultProvider } = options;
  if (defaultProvider !== undefined && !isProviderName(defaultProvider)) throw new UsageError(`--default-provider expects ${providerNames.join(' or ')}, got "${defaultProvider}"`);
  return { ...(defaultModel ? { defaultModel } : {}), ...(defaultProvider ? { defaultProvider } : {}) };
}

function parseSandbox(text: string): SandboxRequest {
  if (!isSandboxSetting(text)) throw new UsageError(`--sandbox expects ${sandboxSettings.join(', ')}, got "${text}"`);
  return namedSandbox(text);
}

function parseMaxParallel(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!isMaxParallel(value)) throw new UsageError(`--max-parallel expects an integer of at least 1, got "${text}"`);
  return value;
}

/** `--serve PORT` (on 127.0.0.1) or `--serve PATH` (a Unix socket). */
function listenTarget(text: string): ListenTarget {
  return /^\d+$/.test(text) ? { port: integerOption('--serve', text, 0, 65_535), host: '127.0.0.1' } : { socket: path.resolve(text) };
}

/** A duration option given in seconds (fractions allowed), in milliseconds. */
export function secondsOption(name: string, text: string, min: number, max: number): number {
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) throw new UsageError(`${name} expects a number of seconds from ${min} to ${max}, got "${text}"`);
  return Math.round(value * 1000);
}

export function integerOption(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`${name} expects an integer from ${min} to ${max}, got "${text}"`);
  return value;
}

function progressPrinter(enabled: boolean): (event: RunEvent) => void {
  if (!enabled) return () => undefined;
  const started = new Map<string, number>();
  return (event) => {
    if (event.type === 'node:start') {
      started.set(`${event.scope.id}/${event.nodeId}`, performance.now());
      process.stderr.write(`▶ ${event.scope.kind === 'main' ? '' : `${event.scope.id} › `}${event.nodeId} (iteration ${event.iteration})\n`);
    } else if (event.type === 'node:end') {
      const t0 = started.get(`${event.scope.id}/${event.nodeId}`) ?? performance.now();
      const mark = event.outcome.status === 'fail' ? '✗' : event.outcome.status === 'skipped' ? '–' : '✓';
      const why = event.outcome.failureReason ? ` — ${event.outcome.failureReason.split('\n')[0]}` : '';
      process.stderr.write(`  ${mark} ${event.nodeId} ${event.outcome.status} ${formatDuration(performance.now() - t0)}${why}\n`);
    } else if (event.type === 'node:retry') {
      process.stderr.write(`  ↻ ${event.nodeId} retry ${event.attempt} in ${formatDuration(event.delayMs)}: ${event.reason}\n`);
    } else if (event.type === 'iteration') {
      process.stderr.write(`── iteration ${event.iteration} ──\n`);
    }
  };
}

/** Warnings (snapshots off, a fan-in's fallback) are shown whatever the terminal. */
function warningPrinter(event: RunEvent): void {
  if (event.type === 'warning') process.stderr.write(`warning: ${event.message}\n`);
}

function report(outcome: LaunchResult, file: string, json: boolean | undefined): number {
  if (outcome.kind === 'refused') {
    for (const d of outcome.diagnostics) process.stderr.write(`${formatDiagnostic(file, d)}\n`);
    process.stderr.write(`attractor: ${outcome.reason}\n`);
    if (json) process.stdout.write(`${JSON.stringify({ status: 'fail', failure_reason: outcome.reason, logs_root: null })}\n`);
    return EXIT.refused;
  }
  const { result } = outcome;
  const status = result.status === 'success' ? 'success' : 'fail';
  if (json) {
    process.stdout.write(`${JSON.stringify({ status, failure_reason: result.failureReason ?? null, logs_root: result.logsRoot })}\n`);
  } else {
    process.stderr.write(`${describeRunEnd(result.status, result.failureReason)}\nrun directory: ${result.logsRoot}\n`);
  }
  return EXIT[result.status];
}

function withCancellation(): AbortController {
  const controller = new AbortController();
  const cancel = () => controller.abort(new Error('cancelled by signal'));
  process.once('SIGINT', cancel);
  process.once('SIGTERM', cancel);
  return controller;
}

/** `env`: the environment with the provider keys, which the CLI keeps out of process.env (credentials.ts). */
export async function runCommand(file: string, options: RunCommandOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const events = new EventBus();
  events.on(progressPrinter(process.stderr.isTTY === true && !options.json));
  events.on(warningPrinter);
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const logsRoot = path.resolve(options.logsRoot ?? path.join(cwd, '.attractor-runs', `${path.basename(file, '.dot')}-${stamp}`));
  const { interviewer, ...backend } = execution(options, env);
  const handlers = await loadCustomHandlers(options.handlers ?? []);
  const launch = { cwd, logsRoot, params: parseParams(options.param), ...backend, ...(handlers ? { handlers } : {}), events, signal: withCancellation().signal };
  if (options.serve === undefined) {
    if (options.attachLease !== undefined) throw new UsageError('--attach-lease is for a run followed with --serve');
    return report(await launchPipelineFile(file, { ...launch, interviewer }), file, options.json);
  }
  const attachLeaseMs = secondsOption('--attach-lease', options.attachLease ?? DEFAULT_ATTACH_LEASE_SECONDS, ATTACH_LEASE_SECONDS.min, ATTACH_LEASE_SECONDS.max);
  // Over HTTP gates are asked always; on this terminal only when someone can type (a stdin at its end would skip them at once).
  const local = options.scripted || process.stdin.isTTY ? { interviewer } : {};
  const announce = (url: string) => process.stderr.write(`attractor run: following this run at ${url}\n`);
  return report(await launchServedFile(file, listenTarget(options.serve), { ...launch, ...local, attachLeaseMs }, announce), file, options.json);
}

export interface ResumeCommandOptions extends ExecutionOptions {
  readonly from?: string;
  readonly cwd?: string;
  readonly discardChanges?: boolean;
}

export async function resumeCommand(runDirectory: string, options: ResumeCommandOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const events = new EventBus();
  events.on(progressPrinter(process.stderr.isTTY === true && !options.json));
  events.on(warningPrinter);
  // The run continues only in the working directory named here (the current one by default), never in one its run directory names.
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const handlers = await loadCustomHandlers(options.handlers ?? []);
  const resumeOptions = { ...execution(options, env), ...(handlers ? { handlers } : {}), events, signal: withCancellation().signal, cwd };
  const pipelineFile = new RunReader(runDirectory).pipelineCopy;
  if (options.discardChanges && options.from === undefined) throw new UsageError('--discard-changes is for resume --from (time travel)');
  if (options.from === undefined) return report(await resumeRun(path.resolve(runDirectory), resumeOptions), pipelineFile, options.json);
  const branch = await branchFromVisit(runDirectory, parseVisitTarget(options.from), { cwd, discardChanges: options.discardChanges === true });
  if (branch.kind === 'refused') return report(branch, pipelineFile, options.json);
  if (branch.kind === 'changed-elsewhere') return changedElsewhere(branch, '--discard-changes', options.json);
  process.stderr.write(`resuming from before ${branch.nodeId}@${branch.visit} (step ${branch.step}) in a new branch run: ${branch.directory}\n`);
  if (branch.workspaceNotRestored) process.stderr.write(`warning: the working directory was NOT restored (${branch.workspaceNotRestored}); time travel falls back to the run's state only, the files are as they are now\n`);
  if (branch.restore) {
    const { discarded, overBudget = [] } = branch.restore;
    const leftAlone = overBudget.length > 0 ? `; past the snapshot budget, left as it is: ${overBudget.map(quotePath).join(', ')}` : '';
    process.stderr.write(`the working directory was put back as it was then${discarded.length > 0 ? `, discarding ${discarded.length} change(s) the run did not make` : ''}; \`attractor undo ${branch.directory}\` brings back what it held${leftAlone}\n`);
  }
  return report(await resumeRun(branch.directory, resumeOptions), new RunReader(branch.directory).pipelineCopy, options.json);
}

/** `attractor undo BRANCH`: the working directory back as the restore that started the branch found it. */
export async function undoCommand(branchDirectory: string, options: { readonly discardChanges?: boolean; readonly json?: boolean }): Promise<number> {
  const undone = await undoBranchRestore(branchDirectory, { discardChanges: options.discardChanges === true });
  if (undone.kind === 'refused') return report({ ...undone, reason: `cannot undo: ${undone.reason}` }, new RunReader(branchDirectory).pipelineCopy, options.json);
  if (undone.kind === 'changed-elsewhere') return changedElsewhere(undone, '--discard-changes', options.json);
  const { record } = undone;
  if (options.json) process.stdout.write(`${JSON.stringify({ status: 'undone', cwd: record.cwd, restored: record.replaced, replaced: record.undone?.replaced ?? null })}\n`);
  else process.stderr.write(`${record.cwd} is back as the restore of ${record.at} found it; what it held until now is snapshot ${record.undone?.replaced ?? ''} (restore.json)\n`);
  return EXIT.success;
}

/** Time travel refused over changes the run did not make: exit 2 with the list. */
function changedElsewhere(refusal: ChangedElsewhere, flag: string, json: boolean | undefined): number {
  process.stderr.write(`attractor: ${describeChangesElsewhere(refusal.cwd, refusal.changes)}\nNothing was changed. Keep them elsewhere first, or pass ${flag} (they stay recoverable with \`attractor undo\`).\n`);
  if (json) process.stdout.write(`${JSON.stringify({ status: 'refused', cwd: refusal.cwd, changes: refusal.changes })}\n`);
  return EXIT.refused;
}
