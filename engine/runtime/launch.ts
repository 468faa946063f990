import fs from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../model/diagnostics';
import type { Graph } from '../model/graph';
import { resolveHandlerType } from '../model/handler-types';
import { preparePipeline, type PreparedPipeline } from '../prepare';
import type { CodergenBackend } from './backend';
import type { EventBus } from './events';
import type { PausedRun, RunOptions, RunResult } from './runner';
import { hashSource, runPipeline, runPipelineStep } from './runner';
import { CheckpointError, RunDirectory, loadCheckpoint } from './run-directory';
import { modelSelectionOf } from './node-config';
import { settleOrphans } from './orphans';
import { RunLock, RunLockedError } from './run-lock';
import { hasCheckpoint, runFile } from './run-layout';
import { autoSandbox } from '../model/sandbox-setting';
import { sandboxRefusal } from './sandbox';
import { RUN_FILES } from './run-file-names';
import { READ_LIMITS, readFileChecked } from '../io/read-file-checked';
import { realPathOf } from '../io/real-path';

export type LaunchResult<R = RunResult> = { readonly kind: 'refused'; readonly diagnostics: readonly Diagnostic[]; readonly reason: string } | { readonly kind: 'ran'; readonly result: R; readonly warnings: readonly Diagnostic[] };

/** How a run is walked once its directory is locked: to the end, or to a pause (`runPipelineStep`). */
type Walk<R> = (options: RunOptions) => Promise<R>;

/** Walks to the boundary before a node `pauseBefore` answers true for: one durable step of a Restate worker. */
export function pausingWalk(pauseBefore: (nodeId: string) => boolean): Walk<RunResult | PausedRun> {
  return (options) => runPipelineStep(options, pauseBefore);
}

export interface LaunchOptions extends Omit<RunOptions, 'graph' | 'source' | 'resume'> {
  readonly events: EventBus;
}

/** PARSE → TRANSFORM → VALIDATE with phase events, a backend preflight, then the run. */
export async function launchPipelineFile(file: string, options: LaunchOptions): Promise<LaunchResult> {
  let source: string;
  try {
    source = readFileChecked(file, READ_LIMITS.pipeline);
  } catch (error) {
    return { kind: 'refused', diagnostics: [], reason: (error as Error).message };
  }
  const admission = admitPipeline(source, { ...options, sourcePath: path.resolve(file) });
  if (admission.kind === 'refused') return admission;
  return runLocked({ ...options, graph: admission.graph, source }, admission.warnings, runPipeline);
}

/**
 * Runs a pipeline admitted by `admitPipeline` under the run directory's lock, as
 * `launchPipelineFile` does; a directory another engine took since the admission rejects with its reason.
 */
export async function runAdmitted(options: RunOptions): Promise<RunResult> {
  return ranOrThrow(await runLocked(options, [], runPipeline));
}

/** `runAdmitted` walking with `walk` (a pausing one). */
export async function runAdmittedWith<R>(options: RunOptions, walk: Walk<R>): Promise<R> {
  return ranOrThrow(await runLocked(options, [], walk));
}

function ranOrThrow<R>(launched: LaunchResult<R>): R {
  if (launched.kind !== 'ran') throw new Error(launched.reason);
  return launched.result;
}

function runLocked<R>(options: RunOptions, warnings: readonly Diagnostic[], walk: Walk<R>): Promise<LaunchResult<R>> {
  // Again under the lock: another engine may have started a run there since the admission.
  return withRunLock(options.logsRoot, options.cwd, async () => runDirectoryTaken(options.logsRoot) ?? { kind: 'ran', result: await walk(options), warnings });
}

export type Admission = Exclude<LaunchResult, { kind: 'ran' }> | { readonly kind: 'admitted'; readonly graph: Graph; readonly warnings: readonly Diagnostic[] };

export interface AdmissionOptions extends Pick<LaunchOptions, 'events' | 'backend' | 'logsRoot' | 'cwd' | 'params' | 'files' | 'sandbox' | 'handlers'> {
  /** Where the source lives (sub-pipelines and prompt files resolve from it); absent for inline DOT. */
  readonly sourcePath?: string;
}

/** The checks before a fresh run, with their phase events: it validates, its backend can serve it and its sandbox runs, its run directory is free. */
export function admitPipeline(source: string, options: AdmissionOptions): Admission {
  return admitPrepared(preparePipeline(source, { ...(options.sourcePath ? { sourcePath: options.sourcePath } : {}), ...(options.params ? { params: options.params } : {}), ...(options.files ? { files: options.files } : {}), ...(options.handlers ? { customHandlerTypes: options.handlers.types() } : {}), mode: 'validate' }), options);
}

/**
 * `admitPipeline` for a source prepared elsewhere (`preparePipeline` in `validate` mode with the same
 * options: a server validates submissions on a worker thread).
 */
export function admitPrepared(prepared: Pick<PreparedPipeline, 'graph' | 'diagnostics'>, options: AdmissionOptions): Admission {
  const { events } = options;
  const name = options.sourcePath ? path.basename(options.sourcePath) : 'the pipeline';
  events.emit({ type: 'phase', phase: 'parse', state: 'start' });
  events.emit({ type: 'phase', phase: 'parse', state: 'end' });
  events.emit({ type: 'phase', phase: 'transform', state: 'start' });
  events.emit({ type: 'phase', phase: 'transform', state: 'end' });
  events.emit({ type: 'phase', phase: 'validate', state: 'start' });
  const errors = prepared.diagnostics.filter((d) => d.severity === 'error');
  events.emit({ type: 'phase', phase: 'validate', state: 'end' });
  if (!prepared.graph || errors.length > 0) {
    return { kind: 'refused', diagnostics: prepared.diagnostics, reason: `${name} has ${errors.length} error(s); the pipeline was not started` };
  }
  const problems = preflight(options.backend, prepared.graph) ?? sandboxRefusal(prepared.graph, options.sandbox ?? autoSandbox);
  if (problems) return { kind: 'refused', diagnostics: [], reason: problems };
  const engine = RunLock.liveHolder(options.logsRoot) ?? RunLock.workingDirectoryHolder(options.cwd);
  if (engine) return { kind: 'refused', diagnostics: [], reason: engine };
  return runDirectoryTaken(options.logsRoot) ?? { kind: 'admitted', graph: prepared.graph, warnings: prepared.diagnostics };
}

export type RefusedLaunch = Extract<LaunchResult, { kind: 'refused' }>;

/**
 * Runs `engine` holding the run directory's lock and the lock of the working directory `cwd` it
 * works in; a directory another live engine holds is refused.
 */
export async function withRunLock<T>(root: string, cwd: string, engine: () => Promise<T> | T): Promise<T | RefusedLaunch> {
  const locks: RunLock[] = [];
  try {
    try {
      locks.push(RunLock.acquire(root));
      const workingDirectory = RunLock.acquireWorkingDirectory(cwd, root);
      if (workingDirectory) locks.push(workingDirectory);
    } catch (error) {
      if (error instanceof RunLockedError) return { kind: 'refused', diagnostics: [], reason: error.message };
      throw error;
    }
    // A killed engine's temp files go as soon as the directory is ours, whether or not a run follows
    // (an engine killed while compacting a finished run's journal left one that resume refuses to run).
    new RunDirectory(root).removeStaleTempFiles();
    return await engine();
  } finally {
    for (const lock of locks.reverse()) lock.release();
  }
}

/**
 * A fresh run never writes over another run's records. A run exists from its first commit, which
 * writes checkpoint.json: what an engine killed before it left (a manifest, an empty trace) holds no
 * finished node, and a new run starts over it.
 */
function runDirectoryTaken(logsRoot: string): Exclude<LaunchResult, { kind: 'ran' }> | undefined {
  if (!hasCheckpoint(logsRoot)) return undefined;
  return { kind: 'refused', diagnostics: [], reason: `${logsRoot} already holds a run: resume it with \`attractor resume\`, or choose another --logs-root` };
}

function preflight(backend: CodergenBackend, graph: Graph): string | undefined {
  const llmNodes = [...graph.nodes.values()]
    .filter((node) => resolveHandlerType(node) === 'codergen')
    .map((node) => ({ node, model: modelSelectionOf(node, graph) }));
  const problems = backend.preflight(llmNodes);
  if (problems.length === 0) return undefined;
  return `the ${backend.name} backend cannot serve this pipeline:\n${problems.map((p) => `  node ${p.nodeId} (${p.provider}): ${p.message}`).join('\n')}`;
}

/** `cwd`: the working directory the person resuming named or confirmed; the run resumes only if it is the one the run worked in. */
export type ResumeOptions = Omit<LaunchOptions, 'logsRoot' | 'params'>;

/**
 * Opt-in resume: the checkpoint must be ours, unfinished, and taken on this very pipeline source
 * (the copy kept in the run directory), and the working directory it names must be the one the
 * caller names; anything else fails loud. The graph hash only proves the checkpoint and the
 * pipeline.dot beside it belong together (no mix-up of files), not who wrote them: a run directory
 * is trusted as far as the person resuming it trusts where it came from.
 */
export async function resumeRun(runDirectory: string, options: ResumeOptions): Promise<LaunchResult> {
  return resumeRunWith(runDirectory, options, runPipeline);
}

/** `resumeRun` walking with `walk` (a pausing one). */
export async function resumeRunWith<R>(runDirectory: string, options: ResumeOptions, walk: Walk<R>): Promise<LaunchResult<R>> {
  if (!fs.existsSync(runDirectory)) return { kind: 'refused', diagnostics: [], reason: `no checkpoint at ${runFile(runDirectory, 'checkpoint')}: is ${runDirectory} a run directory?` };
  return withRunLock(runDirectory, options.cwd, () => resumeLocked(runDirectory, options, walk));
}

async function resumeLocked<R>(runDirectory: string, options: ResumeOptions, walk: Walk<R>): Promise<LaunchResult<R>> {
  let state;
  try {
    state = loadCheckpoint(runDirectory);
  } catch (error) {
    return { kind: 'refused', diagnostics: [], reason: error instanceof CheckpointError ? error.message : String(error) };
  }
  if (state.status !== 'running' && state.status !== 'cancelled') {
    return { kind: 'refused', diagnostics: [], reason: `the run in ${runDirectory} already finished (${state.status}${state.failureReason ? `: ${state.failureReason}` : ''}); start a new run instead` };
  }
  const elsewhere = otherWorkingDirectory(runDirectory, state.cwd, options.cwd);
  if (elsewhere) return { kind: 'refused', diagnostics: [], reason: elsewhere };
  let source: string;
  try {
    source = readFileChecked(runFile(runDirectory, 'pipeline'), READ_LIMITS.pipeline);
  } catch (error) {
    return { kind: 'refused', diagnostics: [], reason: `${runDirectory} has no readable ${RUN_FILES.pipeline} (${(error as Error).message}): it is not a run directory this engine wrote` };
  }
  if (hashSource(source) !== state.graphHash) {
    return { kind: 'refused', diagnostics: [], reason: `the checkpoint in ${runDirectory} belongs to another pipeline (its graph hash does not match ${RUN_FILES.pipeline})` };
  }
  const prepared = preparePipeline(source, { ...(state.sourcePath ? { sourcePath: state.sourcePath } : {}), params: state.params, ...(options.files ? { files: options.files } : {}), mode: 'validate' });
  if (!prepared.graph || prepared.diagnostics.some((d) => d.severity === 'error')) {
    return { kind: 'refused', diagnostics: prepared.diagnostics, reason: 'the pipeline in the run directory no longer validates' };
  }
  const problems = preflight(options.backend, prepared.graph) ?? sandboxRefusal(prepared.graph, options.sandbox ?? autoSandbox);
  if (problems) return { kind: 'refused', diagnostics: [], reason: problems };
  // The interrupted node runs again; the commands the killed engine left running must not race it.
  await settleOrphans(runDirectory, options.events);
  const result = await walk({ ...options, graph: prepared.graph, source, logsRoot: runDirectory, resume: state });
  return { kind: 'ran', result, warnings: [] };
}

/**
 * Why a run that worked in `recorded` may not resume in `named`, or undefined when they are one
 * directory. The recorded one is only what the run directory says: a copied or forged run directory
 * must not choose which folder its nodes rewrite.
 */
export function otherWorkingDirectory(runDirectory: string, recorded: string, named: string): string | undefined {
  if (realPathOf(recorded) === realPathOf(named)) return undefined;
  return `the run in ${runDirectory} worked in ${recorded}, not in ${path.resolve(named)}: it continues only in the working directory it worked in, once you name it (attractor resume --cwd ${recorded}, or "cwd" in launch.json)`;
}
