// The Runs view's model: how a run summary (host/run-directory) reads in the tree. No `vscode`
// here; the tree provider renders these.
import path from 'node:path';
import type { RunSummary, RunSummaryStatus } from '../host/run-directory/run-summary';
import { RunReader } from '../host/run-directory/run-reader';
import { runStatusWords } from '../engine/runtime/run-status';
import type { RunUsageTotal } from '../engine/runtime/usage';
import { formatRunUsage } from '../engine/runtime/usage';

/** Each main-walk visit of a run, as "Re-run from…" offers them: NODE@N (across the run), its iteration and status. */
export function rerunChoices(directory: string): { readonly nodeId: string; readonly visit: number; readonly iteration: number; readonly status: string }[] {
  return new RunReader(directory).visits().map(({ record, visit }) => ({ nodeId: record.node_id, visit, iteration: record.iteration, status: record.status }));
}

/** The word a person reads for a summary's status ("succeeded", "interrupted", …). */
export function statusWord(status: RunSummaryStatus): string {
  return status === 'interrupted' || status === 'unreadable' ? status : runStatusWords[status];
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
  const parts: string[] = [statusWord(run.status)];
  if (run.status !== 'unreadable') {
    if (run.iteration !== undefined) parts.push(`iteration ${run.iteration}`);
    if (run.durationMs !== undefined) parts.push(formatDuration(run.durationMs));
  }
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

/** A run in the tree: the time-travel branches made from it hang under it. */
export interface RunNode {
  readonly run: RunSummary;
  readonly branches: readonly RunNode[];
}

/** The runs a connected server lists: its rows show them, live, so their directories are not shown again. */
export interface ServedRuns {
  readonly ids: ReadonlySet<string>;
  readonly directories: ReadonlySet<string>;
}

const NONE_SERVED: ServedRuns = { ids: new Set(), directories: new Set() };

/**
 * The Runs view's rows: each branch under the run it branched from (when that run is listed; else on
 * its own), in the order of where in that run it branched; other runs in the order given; runs the connected server serves are left out (its rows show them).
 */
export function runTree(runs: readonly RunSummary[], served: ServedRuns = NONE_SERVED): RunNode[] {
  const shown = runs.filter((run) => !(run.servedId !== undefined && served.ids.has(run.servedId)) && !served.directories.has(path.resolve(run.directory)));
  const listed = new Set(shown.map((run) => path.resolve(run.directory)));
  const branchesOf = new Map<string, RunSummary[]>();
  for (const run of shown) {
    const parent = run.branch && path.resolve(run.branch.parent);
    if (parent && listed.has(parent)) branchesOf.set(parent, [...(branchesOf.get(parent) ?? []), run]);
  }
  const placed = new Set<string>();
  const node = (run: RunSummary): RunNode => {
    placed.add(path.resolve(run.directory));
    const branches = (branchesOf.get(path.resolve(run.directory)) ?? []).filter((branch) => !placed.has(path.resolve(branch.directory)));
    return { run, branches: branches.sort(byBranchPoint).map(node) };
  };
  const tops = shown.filter((run) => !(run.branch && listed.has(path.resolve(run.branch.parent)))).map(node);
  // Branch markers edited into a loop leave runs no top reaches: the first of each loop stands for it.
  for (const run of shown) if (!placed.has(path.resolve(run.directory))) tops.push(node(run));
  return tops;
}

function byBranchPoint(a: RunSummary, b: RunSummary): number {
  return (a.branch?.step ?? 0) - (b.branch?.step ?? 0) || a.name.localeCompare(b.name);
}

/** A row's name: a branch by where it branched ("from test_gate@2"), any other run by its pipeline. */
export function runLabel(run: RunSummary): string {
  if (!run.branch) return run.graphName ?? run.name;
  const { nodeId, visit, step } = run.branch;
  return visit !== undefined ? `from ${nodeId}@${visit}` : `from ${nodeId} (step ${step})`;
}

/** A run as a picker lists it, where there is no tree: a branch names its pipeline and where it branched. */
export function pickerLabel(run: RunSummary): string {
  return run.branch ? `${run.graphName ?? run.name} › ${runLabel(run)}` : runLabel(run);
}

/** The diff editor's title for what one visit did to a file: "notes.md — review@2 (before ↔ after)", the visit numbered across the run. */
export function visitDiffTitle(file: string, nodeId: string, visit: number): string {
  return `${path.posix.basename(file)} — ${nodeId}@${visit} (before ↔ after)`;
}
