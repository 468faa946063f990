// The Runs view's model: run directories under a runs root, each with status, iteration and
// duration read from its checkpoint. No `vscode` here; the tree provider renders these.
import fs from 'node:fs';
import path from 'node:path';
import { isRecord } from '../engine/model/json';
import { READ_LIMITS, readFileChecked } from '../engine/io/read-file-checked';
import { readTrace } from '../engine/runtime/run-directory';
import { numberedVisits } from '../engine/runtime/numbered-visits';
import type { RunUsageTotal } from '../engine/runtime/usage';
import { formatRunUsage, runUsageTotal } from '../engine/runtime/usage';

/** `interrupted`: the checkpoint says running but its engine process is gone (killed, crashed, machine restarted). */
type RunSummaryStatus = 'running' | 'interrupted' | 'cancelled' | 'succeeded' | 'failed' | 'unreadable';

export interface RunSummary {
  readonly directory: string;
  readonly name: string;
  readonly graphName?: string;
  readonly sourcePath?: string;
  readonly status: RunSummaryStatus;
  readonly iteration?: number;
  readonly durationMs?: number;
  readonly startedAt?: string;
  /** Over the run's visits so far (trace.jsonl); absent when no node called a model. */
  readonly usage?: RunUsageTotal;
  /** Why the entry could not be read, for unreadable ones. */
  readonly problem?: string;
}

/** Every run directory (one holding a manifest.json or checkpoint.json) directly under `root`, newest first. */
export function listRuns(root: string): RunSummary[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(root, entry.name))
    .filter((dir) => fs.existsSync(path.join(dir, 'checkpoint.json')) || fs.existsSync(path.join(dir, 'manifest.json')))
    .map(summarizeRun)
    .sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? '') || b.name.localeCompare(a.name));
}

export function summarizeRun(directory: string): RunSummary {
  const name = path.basename(directory);
  const manifest = readJson(path.join(directory, 'manifest.json')).value;
  const checkpointRead = readJson(path.join(directory, 'checkpoint.json'));
  const checkpoint = checkpointRead.value;
  const graphName = stringField(checkpoint, 'graphName') ?? stringField(manifest, 'graph_name');
  const sourcePath = stringField(checkpoint, 'sourcePath') ?? stringField(manifest, 'source_path');
  const startedAt = stringField(checkpoint, 'startedAt') ?? stringField(manifest, 'start_time');
  const usage = traceUsage(directory);
  const base = {
    directory,
    name,
    ...(graphName ? { graphName } : {}),
    ...(sourcePath ? { sourcePath } : {}),
    ...(startedAt ? { startedAt } : {}),
    ...(usage.llm_requests > 0 ? { usage } : {}),
  };
  if (!checkpoint) {
    // A run that has not finished its first node has a manifest only.
    if (checkpointRead.problem) return { ...base, status: 'unreadable', problem: checkpointRead.problem };
    return manifest ? { ...base, status: 'running' } : { ...base, status: 'unreadable', problem: 'no readable checkpoint.json or manifest.json' };
  }
  const rawStatus = stringField(checkpoint, 'status');
  const status = checkpointStatus(rawStatus, numberField(checkpoint, 'pid'));
  const iteration = numberField(checkpoint, 'iteration');
  const updatedAt = stringField(checkpoint, 'updatedAt');
  const elapsedBefore = numberField(checkpoint, 'elapsedBeforeMs') ?? 0;
  const durationMs = startedAt && updatedAt ? Math.max(0, Date.parse(updatedAt) - Date.parse(startedAt)) + elapsedBefore : undefined;
  return {
    ...base,
    status,
    ...(iteration !== undefined ? { iteration } : {}),
    ...(durationMs !== undefined && Number.isFinite(durationMs) ? { durationMs } : {}),
    ...(status === 'unreadable' ? { problem: `checkpoint.json has status ${JSON.stringify(rawStatus)}` } : {}),
  };
}

/** A trace's usage total, by the trace file's size and modification time when it was read. */
const usageByTrace = new Map<string, { readonly size: number; readonly mtimeMs: number; readonly usage: RunUsageTotal }>();

/**
 * The run's usage over its trace. The Runs view lists every run again after each node step of any
 * of them; only a trace that grew (or was replaced) since its last read is parsed again.
 */
function traceUsage(directory: string): RunUsageTotal {
  const file = path.join(directory, 'trace.jsonl');
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    usageByTrace.delete(file);
    return runUsageTotal([]);
  }
  const known = usageByTrace.get(file);
  if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs) return known.usage;
  const usage = runUsageTotal(readTrace(directory));
  usageByTrace.set(file, { size: stat.size, mtimeMs: stat.mtimeMs, usage });
  return usage;
}

/** Whether a run has ended, so "Re-run from here" may branch from one of its visits (a live run's files are its engine's). */
export function hasEnded(status: RunSummaryStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'cancelled' || status === 'interrupted';
}

/** Each main-walk visit of a run, as "Re-run from…" offers them: NODE@N (across the run), its iteration and status. */
export function rerunChoices(directory: string): { readonly nodeId: string; readonly visit: number; readonly iteration: number; readonly status: string }[] {
  return numberedVisits(readTrace(directory)).map(({ record, visit }) => ({ nodeId: record.node_id, visit, iteration: record.iteration, status: record.status }));
}

/** Whether `attractor resume` (or Resume run…) can continue a run in this state. */
export function isResumable(status: RunSummaryStatus): boolean {
  return status === 'interrupted' || status === 'cancelled';
}

function checkpointStatus(raw: string | undefined, pid: number | undefined): RunSummaryStatus {
  switch (raw) {
    case 'success':
      return 'succeeded';
    case 'fail':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    case 'running':
      return pid !== undefined && isAlive(pid) ? 'running' : 'interrupted';
    default:
      return 'unreadable';
  }
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

/** "1.2 s", "3 min 4 s": the description a tree item shows. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

export function describeRun(run: RunSummary): string {
  const parts: string[] = [run.status];
  if (run.iteration !== undefined) parts.push(`iteration ${run.iteration}`);
  if (run.durationMs !== undefined) parts.push(formatDuration(run.durationMs));
  if (run.usage) parts.push(describeUsage(run.usage));
  return parts.join(' · ');
}

/** "12,345 tokens · $0.0123" (or "unknown" for either): the run total a Runs item shows. */
function describeUsage(usage: RunUsageTotal): string {
  const { input_tokens: input, output_tokens: output, cost_usd: cost } = usage;
  const tokens = input === 'unknown' || output === 'unknown' ? 'unknown tokens' : `${(input + output).toLocaleString('en-US')} tokens`;
  return `${tokens} · ${cost === 'unknown' ? 'cost unknown' : `$${cost.toFixed(4)}`}`;
}

/** The full total for a tooltip. */
export function usageDetail(usage: RunUsageTotal): string {
  return `usage: ${formatRunUsage(usage)}`;
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
