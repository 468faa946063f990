import fs from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../../engine/model/diagnostics';
import type { CodergenBackend } from '../../engine/runtime/backend';
import { EventBus } from '../../engine/runtime/events';
import type { RunEvent, TraceRecord } from '../../engine/runtime/events';
import type { Interviewer } from '../../engine/runtime/interviewer';
import type { LaunchResult } from '../../engine/runtime/launch';
import { launchPipelineFile } from '../../engine/runtime/launch';
import { preparePipeline } from '../../engine/prepare';
import type { LintEntry } from './lint-tool';
import { lintEntries } from './lint-tool';
import type { PipelineToolInput } from './pipeline-input';
import { resolvePipelineSource } from './pipeline-input';
import { changedFiles, snapshotFiles } from './written-files';
import type { RunEnd } from '../../engine/runtime/run-status';

export interface RunRequest {
  readonly file: string;
  readonly cwd: string;
  readonly logsRoot: string;
  readonly params: Readonly<Record<string, string>>;
  /** The tool listens for progress; the host attaches its graph view to the same bus. */
  readonly events: EventBus;
  readonly signal: AbortSignal;
}

/** How a pipeline runs: the extension passes one that shows the graph view and human-gate panel. */
export type PipelineRunner = (request: RunRequest) => Promise<LaunchResult>;

/** A runner on the engine alone, with the given backend and interviewer (tests: the scripted pair). */
export function engineRunner(services: () => { backend: CodergenBackend; interviewer: Interviewer }): PipelineRunner {
  return (request) => launchPipelineFile(request.file, { ...request, ...services() });
}

export interface RunToolResult {
  readonly status: RunEnd | 'refused';
  readonly failure_reason: string | null;
  readonly iterations: number;
  /** Node ids of the main walk in the order they completed, across iterations. */
  readonly path: readonly string[];
  readonly run_directory: string | null;
  /** must_write files of visited nodes and every other file the run created or changed in cwd. */
  readonly artifacts: readonly string[];
  readonly diagnostics?: readonly LintEntry[];
}

export interface RunToolContext {
  readonly trusted: boolean;
  readonly workspaceRoot: string | undefined;
  readonly runner: PipelineRunner;
  readonly signal: AbortSignal;
  readonly onProgress?: (message: string) => void;
  /** Time stamp for the run directory name (the CLI's layout: `<cwd>/.attractor-runs/<name>-<stamp>`). */
  readonly now?: () => Date;
}

const refused = (reason: string, diagnostics?: readonly Diagnostic[]): RunToolResult => ({
  status: 'refused',
  failure_reason: reason,
  iterations: 0,
  path: [],
  run_directory: null,
  artifacts: [],
  ...(diagnostics && diagnostics.length > 0 ? { diagnostics: lintEntries(diagnostics) } : {}),
});

export const untrustedRefusal = 'this workspace is not trusted: pipelines run shell commands and agents that edit files, so run_pipeline is disabled until you trust the workspace';

/** What `prepareInvocation` shows before asking to run. */
export function describeRun(input: PipelineToolInput, workspaceRoot: string | undefined): { title: string; message: string } {
  const source = resolvePipelineSource(input, workspaceRoot);
  if (!source.ok) return { title: 'Run Attractor pipeline?', message: `The input is not usable: ${source.message}` };
  const prepared = preparePipeline(source.text, { sourcePath: source.sourcePath, ...(input.params ? { params: input.params } : {}) });
  const graph = prepared.graph;
  const shellNodes = graph ? [...graph.nodes.values()].filter((node) => node.attributes.get('tool_command')).map((node) => `- \`${node.id}\`: \`${node.attributes.get('tool_command')?.value ?? ''}\``) : [];
  const params = Object.entries(input.params ?? {}).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  return {
    title: `Run pipeline ${graph?.name || path.basename(source.sourcePath)}?`,
    message: [
      `Runs ${source.inline ? 'the given DOT source' : `\`${source.sourcePath}\``} in \`${source.cwd}\`${params.length > 0 ? ` with ${params.join(', ')}` : ''}.`,
      graph ? `${graph.nodes.size} nodes; LLM nodes may edit files in that directory.` : 'The source does not parse; the run will be refused.',
      ...(shellNodes.length > 0 ? ['Shell commands it may run:', ...shellNodes] : []),
    ].join('\n'),
  };
}

/** run_pipeline: refuses when untrusted, runs through the injected runner, reports what happened. */
export async function runPipelineTool(input: PipelineToolInput, context: RunToolContext): Promise<RunToolResult> {
  if (!context.trusted) return refused(untrustedRefusal);
  const source = resolvePipelineSource(input, context.workspaceRoot);
  if (!source.ok) return refused(source.message);
  const stamp = (context.now?.() ?? new Date()).toISOString().replace(/[:.]/g, '-');
  const name = path.basename(source.sourcePath, '.dot');
  const runsDir = path.join(source.cwd, '.attractor-runs');
  const logsRoot = path.join(runsDir, `${name}-${stamp}`);
  let file = source.sourcePath;
  if (source.inline) {
    // The engine runs files; inline source is kept beside the run directory it produced.
    fs.mkdirSync(runsDir, { recursive: true });
    file = `${logsRoot}.dot`;
    fs.writeFileSync(file, source.text);
  }
  const events = new EventBus();
  const trace: TraceRecord[] = [];
  events.on((event) => {
    if (event.type === 'trace' && event.record.scope === undefined) trace.push(event.record);
    const line = progressLine(event);
    if (line) context.onProgress?.(line);
  });
  const before = snapshotFiles(source.cwd);
  const outcome = await context.runner({ file, cwd: source.cwd, logsRoot, params: input.params ?? {}, events, signal: context.signal });
  if (outcome.kind === 'refused') return refused(outcome.reason, outcome.diagnostics);
  const written = changedFiles(before, snapshotFiles(source.cwd));
  const mustWrite = mustWriteArtifacts(source.text, source.sourcePath, trace).filter((file) => fs.existsSync(path.resolve(source.cwd, file)));
  return {
    status: outcome.result.status,
    failure_reason: outcome.result.failureReason ?? null,
    iterations: new Set(trace.map((record) => record.iteration)).size,
    path: trace.map((record) => record.node_id),
    run_directory: outcome.result.logsRoot,
    artifacts: [...new Set([...mustWrite, ...written])],
  };
}

function mustWriteArtifacts(text: string, sourcePath: string, trace: readonly TraceRecord[]): string[] {
  const graph = preparePipeline(text, { sourcePath }).graph;
  const visited = new Set(trace.map((record) => record.node_id));
  return [...(graph?.nodes.values() ?? [])].filter((node) => visited.has(node.id)).flatMap((node) => node.attributes.get('must_write')?.value ?? []);
}

function progressLine(event: RunEvent): string | undefined {
  if (event.type === 'run:start') return `run directory: ${event.logsRoot}`;
  if (event.type === 'iteration') return `iteration ${event.iteration}`;
  if (event.type === 'node:start' && event.scope.kind === 'main') return `running ${event.nodeId}`;
  if (event.type === 'node:end' && event.scope.kind === 'main') {
    return `${event.nodeId}: ${event.outcome.status}${event.outcome.failureReason ? ` (${event.outcome.failureReason.split('\n')[0]})` : ''}`;
  }
  if (event.type === 'human:question') return `waiting for a human answer at ${event.nodeId}`;
  return undefined;
}

export function formatRunResult(result: RunToolResult): string {
  return JSON.stringify(result, null, 2);
}
