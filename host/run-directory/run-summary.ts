// A run directory in one glance: its status, pipeline, where it is, when it started, how long it
// took, what it cost, and where it branched from. Read leniently: a view lists broken directories
// too, saying why they cannot be read.
import fs from 'node:fs';
import path from 'node:path';
import { isRecord } from '../../engine/model/json';
import { READ_LIMITS, readFileChecked } from '../../engine/io/read-file-checked';
import { runFile } from '../../engine/runtime/run-layout';
import { RUN_FILES } from '../../engine/runtime/run-file-names';
import type { RunStatus } from '../../engine/runtime/run-status';
import { runStatuses } from '../../engine/runtime/run-status';
import type { RunUsageTotal } from '../../engine/runtime/usage';
import { runUsageTotal } from '../../engine/runtime/usage';
import type { BranchOrigin } from './run-reader';
import { RunReader } from './run-reader';

/** A run's status as its directory shows it: the engine's, or `interrupted` — the checkpoint says running but its engine process is gone (killed, crashed, machine restarted). */
type ObservedRunStatus = RunStatus | 'interrupted';

interface SummaryCommon {
  readonly directory: string;
  readonly name: string;
  readonly graphName?: string;
  readonly sourcePath?: string;
  readonly startedAt?: string;
  /** Over the run's visits so far (trace.jsonl); absent when no node called a model. */
  readonly usage?: RunUsageTotal;
  /** Set on a time-travel branch. */
  readonly branch?: BranchOrigin;
  /** The run's id on the `attractor serve` that walks it. */
  readonly servedId?: string;
}

export type RunSummary = SummaryCommon &
  (
    | { readonly status: 'unreadable'; readonly problem: string }
    | {
        readonly status: ObservedRunStatus;
        readonly iteration?: number;
        readonly durationMs?: number;
        /** The node the walk runs next, while it runs (as of the last snapshot). */
        readonly currentNode?: string;
        /** The engine process the checkpoint names, while it says running: whether it lives decides `running` or `interrupted`. */
        readonly pid?: number;
        readonly failureReason?: string;
      }
  );

/** A summary's status, every kind a view shows. */
export type RunSummaryStatus = RunSummary['status'];

export function summarizeRun(directory: string): RunSummary {
  const reader = new RunReader(directory);
  const manifest = readJson(runFile(directory, 'manifest')).value;
  const checkpointRead = readJson(runFile(directory, 'checkpoint'));
  const checkpoint = checkpointRead.value;
  const graphName = stringField(checkpoint, 'graphName') ?? stringField(manifest, 'graph_name');
  const sourcePath = stringField(checkpoint, 'sourcePath') ?? stringField(manifest, 'source_path');
  const startedAt = stringField(checkpoint, 'startedAt') ?? stringField(manifest, 'start_time');
  const usage = traceUsage(reader);
  const branch = reader.branchOrigin();
  const servedId = reader.servedId();
  const common: SummaryCommon = {
    directory,
    name: path.basename(directory),
    ...(graphName ? { graphName } : {}),
    ...(sourcePath ? { sourcePath } : {}),
    ...(startedAt ? { startedAt } : {}),
    ...(usage.llm_requests > 0 ? { usage } : {}),
    ...(branch ? { branch } : {}),
    ...(servedId ? { servedId } : {}),
  };
  if (!checkpoint) {
    if (checkpointRead.problem) return { ...common, status: 'unreadable', problem: checkpointRead.problem };
    // A run that has not finished its first node has a manifest only.
    return manifest ? { ...common, status: 'running' } : { ...common, status: 'unreadable', problem: `no readable ${RUN_FILES.checkpoint} or ${RUN_FILES.manifest}` };
  }
  const rawStatus = checkpoint.status;
  if (!isRunStatus(rawStatus)) return { ...common, status: 'unreadable', problem: `${RUN_FILES.checkpoint} has status ${JSON.stringify(rawStatus)}` };
  const pid = rawStatus === 'running' ? numberField(checkpoint, 'pid') : undefined;
  const status = observedStatus(rawStatus, pid);
  const iteration = numberField(checkpoint, 'iteration');
  const updatedAt = stringField(checkpoint, 'updatedAt');
  const elapsedBefore = numberField(checkpoint, 'elapsedBeforeMs') ?? 0;
  const durationMs = startedAt && updatedAt ? Math.max(0, Date.parse(updatedAt) - Date.parse(startedAt)) + elapsedBefore : undefined;
  const currentNode = status === 'running' ? stringField(checkpoint, 'nextNodeId') : undefined;
  const failureReason = status === 'fail' ? stringField(checkpoint, 'failureReason') : undefined;
  return {
    ...common,
    status,
    ...(iteration !== undefined ? { iteration } : {}),
    ...(durationMs !== undefined && Number.isFinite(durationMs) ? { durationMs } : {}),
    ...(currentNode ? { currentNode } : {}),
    ...(pid !== undefined ? { pid } : {}),
    ...(failureReason ? { failureReason } : {}),
  };
}

/** A summary read earlier, as of now: a run read as running whose engine has died since reads as interrupted. */
export function withLiveness(summary: RunSummary): RunSummary {
  if (summary.status === 'unreadable' || summary.pid === undefined) return summary;
  const status = observedStatus('running', summary.pid);
  return status === summary.status ? summary : { ...summary, status };
}

function isRunStatus(value: unknown): value is RunStatus {
  return (runStatuses as readonly unknown[]).includes(value);
}

function observedStatus(status: RunStatus, pid: number | undefined): ObservedRunStatus {
  if (status !== 'running') return status;
  return pid !== undefined && isAlive(pid) ? 'running' : 'interrupted';
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a run has ended, so a visit of it may be branched from (a live run's files are its engine's). */
export function hasEnded(status: RunSummaryStatus): boolean {
  return status === 'success' || status === 'fail' || status === 'cancelled' || status === 'interrupted';
}

/** Whether `attractor resume` (or Resume run…) can continue a run in this state. */
export function isResumable(status: RunSummaryStatus): boolean {
  return status === 'interrupted' || status === 'cancelled';
}

/** A trace's usage total, by the trace file's size and modification time when it was read. */
const usageByTrace = new Map<string, { readonly size: number; readonly mtimeMs: number; readonly usage: RunUsageTotal }>();

/** The run's usage over its trace; only a trace that grew (or was replaced) since its last read is parsed again. */
function traceUsage(reader: RunReader): RunUsageTotal {
  const file = reader.traceFile;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    usageByTrace.delete(file);
    return runUsageTotal([]);
  }
  const known = usageByTrace.get(file);
  if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs) return known.usage;
  const usage = runUsageTotal(reader.trace());
  usageByTrace.set(file, { size: stat.size, mtimeMs: stat.mtimeMs, usage });
  return usage;
}

/** A JSON object file; a missing one is neither value nor problem, an unusable one is a problem. */
function readJson(file: string): { readonly value?: Record<string, unknown>; readonly problem?: string } {
  if (!fs.existsSync(file)) return {};
  try {
    const value: unknown = JSON.parse(readFileChecked(file, READ_LIMITS.runRecord));
    return isRecord(value) ? { value } : { problem: `${path.basename(file)} is not a JSON object` };
  } catch (error) {
    return { problem: error instanceof SyntaxError ? `${path.basename(file)} is not valid JSON (${error.message})` : (error as Error).message };
  }
}

function stringField(object: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = object?.[key];
  return typeof value === 'string' ? value : undefined;
}

function numberField(object: Record<string, unknown> | undefined, key: string): number | undefined {
  const value = object?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The pipeline file to show or walk again for a run: its source when the run recorded one, else the copy in the run directory. */
export function runProgram(directory: string): string {
  return summarizeRun(directory).sourcePath ?? new RunReader(directory).pipelineCopy;
}
