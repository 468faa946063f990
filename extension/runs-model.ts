// The Runs view's model: run directories under a runs root, each with status, iteration and
// duration read from its checkpoint. No `vscode` here; the tree provider renders these.
import fs from 'node:fs';
import path from 'node:path';
import { isRecord } from '../engine/model/json';

type RunSummaryStatus = 'running' | 'succeeded' | 'failed' | 'unreadable';

export interface RunSummary {
  readonly directory: string;
  readonly name: string;
  readonly graphName?: string;
  readonly sourcePath?: string;
  readonly status: RunSummaryStatus;
  readonly iteration?: number;
  readonly durationMs?: number;
  readonly startedAt?: string;
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
  const manifest = readJson(path.join(directory, 'manifest.json'));
  const checkpoint = readJson(path.join(directory, 'checkpoint.json'));
  const graphName = stringField(checkpoint, 'graphName') ?? stringField(manifest, 'graph_name');
  const sourcePath = stringField(checkpoint, 'sourcePath') ?? stringField(manifest, 'source_path');
  const startedAt = stringField(checkpoint, 'startedAt') ?? stringField(manifest, 'start_time');
  const base = { directory, name, ...(graphName ? { graphName } : {}), ...(sourcePath ? { sourcePath } : {}), ...(startedAt ? { startedAt } : {}) };
  if (!checkpoint) {
    // A run that has not finished its first node has a manifest only.
    return manifest ? { ...base, status: 'running' } : { ...base, status: 'unreadable', problem: 'no readable checkpoint.json or manifest.json' };
  }
  const rawStatus = stringField(checkpoint, 'status');
  const status: RunSummaryStatus = rawStatus === 'success' ? 'succeeded' : rawStatus === 'fail' ? 'failed' : rawStatus === 'running' ? 'running' : 'unreadable';
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
  return parts.join(' · ');
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
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
