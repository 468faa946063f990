import path from 'node:path';
import { LlmBackend } from '../llm/llm-backend';
import { formatDuration } from '../model/duration';
import type { CodergenBackend } from '../runtime/backend';
import { ConsoleInterviewer } from '../runtime/console-interviewer';
import { EventBus } from '../runtime/events';
import type { RunEvent } from '../runtime/events';
import type { Interviewer } from '../runtime/interviewer';
import type { LaunchResult } from '../runtime/launch';
import { launchPipelineFile, resumeRun } from '../runtime/launch';
import { ScriptedBackend, loadScript, scriptedInterviewer } from '../runtime/scripted';
import { formatDiagnostic } from './diagnostic-format';

export interface RunCommandOptions {
  readonly param?: string[];
  readonly cwd?: string;
  readonly logsRoot?: string;
  readonly scripted?: string;
  readonly json?: boolean;
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

export class UsageError extends Error {}

function backendAndInterviewer(scripted: string | undefined): { backend: CodergenBackend; interviewer: Interviewer } {
  if (scripted) {
    const script = loadScript(scripted);
    return { backend: new ScriptedBackend(script), interviewer: scriptedInterviewer(script) };
  }
  // Provider keys and base URLs from the environment; its preflight names every node it cannot serve.
  return { backend: new LlmBackend(), interviewer: new ConsoleInterviewer() };
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
    process.stderr.write(`${result.status === 'success' ? 'succeeded' : result.status === 'cancelled' ? 'cancelled (resumable)' : `failed: ${result.failureReason ?? ''}`}\nrun directory: ${result.logsRoot}\n`);
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

export async function runCommand(file: string, options: RunCommandOptions): Promise<number> {
  const events = new EventBus();
  events.on(progressPrinter(process.stderr.isTTY === true && !options.json));
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const logsRoot = path.resolve(options.logsRoot ?? path.join(cwd, '.attractor-runs', `${path.basename(file, '.dot')}-${stamp}`));
  const { backend, interviewer } = backendAndInterviewer(options.scripted);
  const outcome = await launchPipelineFile(file, { cwd, logsRoot, params: parseParams(options.param), backend, interviewer, events, signal: withCancellation().signal });
  return report(outcome, file, options.json);
}

export async function resumeCommand(runDirectory: string, options: { scripted?: string; json?: boolean }): Promise<number> {
  const events = new EventBus();
  events.on(progressPrinter(process.stderr.isTTY === true && !options.json));
  const { backend, interviewer } = backendAndInterviewer(options.scripted);
  const outcome = await resumeRun(path.resolve(runDirectory), { backend, interviewer, events, signal: withCancellation().signal });
  return report(outcome, path.join(runDirectory, 'pipeline.dot'), options.json);
}
