import fs from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../model/diagnostics';
import type { Graph } from '../model/graph';
import { resolveHandlerType } from '../model/handler-types';
import { preparePipeline } from '../prepare';
import type { CodergenBackend } from './backend';
import type { EventBus } from './events';
import type { RunOptions, RunResult } from './runner';
import { hashSource, runPipeline } from './runner';
import { CheckpointError, RunDirectory, loadCheckpoint } from './run-directory';
import { modelSelectionOf } from './node-config';
import { killProcessGroup } from './process';
import { READ_LIMITS, readFileChecked } from '../io/read-file-checked';

export type LaunchResult = { readonly kind: 'refused'; readonly diagnostics: readonly Diagnostic[]; readonly reason: string } | { readonly kind: 'ran'; readonly result: RunResult; readonly warnings: readonly Diagnostic[] };

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
  const result = await runPipeline({ ...options, graph: admission.graph, source });
  return { kind: 'ran', result, warnings: admission.warnings };
}

export type Admission = Exclude<LaunchResult, { kind: 'ran' }> | { readonly kind: 'admitted'; readonly graph: Graph; readonly warnings: readonly Diagnostic[] };

export interface AdmissionOptions extends Pick<LaunchOptions, 'events' | 'backend' | 'logsRoot' | 'params'> {
  /** Where the source lives (sub-pipelines and prompt files resolve from it); absent for inline DOT. */
  readonly sourcePath?: string;
}

/** The checks before a fresh run, with their phase events: it validates, its backend can serve it, its run directory is free. */
export function admitPipeline(source: string, options: AdmissionOptions): Admission {
  const { events } = options;
  const name = options.sourcePath ? path.basename(options.sourcePath) : 'the pipeline';
  events.emit({ type: 'phase', phase: 'parse', state: 'start' });
  const prepared = preparePipeline(source, { ...(options.sourcePath ? { sourcePath: options.sourcePath } : {}), ...(options.params ? { params: options.params } : {}), mode: 'validate' });
  events.emit({ type: 'phase', phase: 'parse', state: 'end' });
  events.emit({ type: 'phase', phase: 'transform', state: 'start' });
  events.emit({ type: 'phase', phase: 'transform', state: 'end' });
  events.emit({ type: 'phase', phase: 'validate', state: 'start' });
  const errors = prepared.diagnostics.filter((d) => d.severity === 'error');
  events.emit({ type: 'phase', phase: 'validate', state: 'end' });
  if (!prepared.graph || errors.length > 0) {
    return { kind: 'refused', diagnostics: prepared.diagnostics, reason: `${name} has ${errors.length} error(s); the pipeline was not started` };
  }
  const problems = preflight(options.backend, prepared.graph);
  if (problems) return { kind: 'refused', diagnostics: [], reason: problems };
  if (holdsRun(options.logsRoot)) {
    return { kind: 'refused', diagnostics: [], reason: `${options.logsRoot} already holds a run: resume it with \`attractor resume\`, or choose another --logs-root` };
  }
  return { kind: 'admitted', graph: prepared.graph, warnings: prepared.diagnostics };
}

/** A fresh run never writes over another run's records. */
function holdsRun(logsRoot: string): boolean {
  return ['checkpoint.json', 'trace.jsonl'].some((name) => fs.existsSync(path.join(logsRoot, name)));
}

function preflight(backend: CodergenBackend, graph: Graph): string | undefined {
  const llmNodes = [...graph.nodes.values()]
    .filter((node) => resolveHandlerType(node) === 'codergen')
    .map((node) => ({ node, model: modelSelectionOf(node, graph) }));
  const problems = backend.preflight(llmNodes);
  if (problems.length === 0) return undefined;
  return `the ${backend.name} backend cannot serve this pipeline:\n${problems.map((p) => `  node ${p.nodeId} (${p.provider}): ${p.message}`).join('\n')}`;
}

export type ResumeOptions = Omit<LaunchOptions, 'logsRoot' | 'cwd' | 'params'>;

/**
 * Opt-in resume: the checkpoint must be ours, unfinished, and taken on this very pipeline source
 * (the copy kept in the run directory); anything else fails loud.
 */
export async function resumeRun(runDirectory: string, options: ResumeOptions): Promise<LaunchResult> {
  let state;
  try {
    state = loadCheckpoint(runDirectory);
  } catch (error) {
    return { kind: 'refused', diagnostics: [], reason: error instanceof CheckpointError ? error.message : String(error) };
  }
  if (state.status !== 'running') {
    return { kind: 'refused', diagnostics: [], reason: `the run in ${runDirectory} already finished (${state.status}${state.failureReason ? `: ${state.failureReason}` : ''}); start a new run instead` };
  }
  let source: string;
  try {
    source = readFileChecked(path.join(runDirectory, 'pipeline.dot'), READ_LIMITS.pipeline);
  } catch (error) {
    return { kind: 'refused', diagnostics: [], reason: `${runDirectory} has no readable pipeline.dot (${(error as Error).message}): it is not a run directory this engine wrote` };
  }
  if (hashSource(source) !== state.graphHash) {
    return { kind: 'refused', diagnostics: [], reason: `the checkpoint in ${runDirectory} belongs to another pipeline (its graph hash does not match pipeline.dot)` };
  }
  const prepared = preparePipeline(source, { ...(state.sourcePath ? { sourcePath: state.sourcePath } : {}), params: state.params, mode: 'validate' });
  if (!prepared.graph || prepared.diagnostics.some((d) => d.severity === 'error')) {
    return { kind: 'refused', diagnostics: prepared.diagnostics, reason: 'the pipeline in the run directory no longer validates' };
  }
  const problems = preflight(options.backend, prepared.graph);
  if (problems) return { kind: 'refused', diagnostics: [], reason: problems };
  // The interrupted node runs again; its orphaned command from the killed process must not race it.
  for (const group of new RunDirectory(runDirectory).orphanProcessGroups()) killProcessGroup(group, 'SIGKILL');
  const result = await runPipeline({ ...options, graph: prepared.graph, source, cwd: state.cwd, logsRoot: runDirectory, resume: state });
  return { kind: 'ran', result, warnings: [] };
}
