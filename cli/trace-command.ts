import path from 'node:path';
import { formatDuration } from '../engine/model/duration';
import type { TraceRecord } from '../engine/runtime/events';
import { formatRunUsage, runUsageTotal } from '../engine/runtime/usage';
import { overBudgetLines, visitChanges } from './visit-files';
import { formatChange } from '../host/file-changes';
import { RunReader } from '../host/run-directory/run-reader';

/**
 * `attractor trace RUN_DIR`: the descent curve, iteration by iteration. Exit 0 even without a trace.
 * With `files`, each visit of the main walk also lists the files it added (A), changed (M) and deleted (D).
 */
export function traceCommand(runDirectory: string, options: { json?: boolean; files?: boolean }): number {
  const reader = new RunReader(runDirectory);
  const records = reader.trace();
  const store = options.files ? reader.store() : undefined;
  const changesOf = (record: TraceRecord) => (store ? visitChanges(store, record) : undefined);
  if (options.files && !store) process.stderr.write(`attractor: ${runDirectory} has no workspace snapshots (they were off for this run); no file changes to show\n`);
  if (options.json) {
    const listed = store ? records.map((record) => ({ ...record, ...(record.files ? { file_changes: changesOf(record) } : {}) })) : records;
    process.stdout.write(`${JSON.stringify({ records: listed, iterations: summarize(records), usage_total: runUsageTotal(records) })}\n`);
    return 0;
  }
  if (records.length === 0) {
    process.stdout.write(`no ${path.basename(reader.traceFile)} in ${runDirectory}\n`);
    return 0;
  }
  for (const iteration of summarize(records)) {
    process.stdout.write(`iteration ${iteration.iteration}: ${iteration.nodes} node(s), ${formatDuration(iteration.duration_ms)}, ${iteration.failed} failed\n`);
    for (const r of records.filter((x) => x.iteration === iteration.iteration)) {
      const retries = r.attempt > 1 ? ` (${r.attempt} attempts)` : '';
      const label = r.preferred_label ? ` → ${r.preferred_label}` : '';
      const scope = r.scope ? ` [${r.scope}]` : '';
      const node = r.visit ? `${r.node_id} #${r.visit}` : r.node_id;
      process.stdout.write(`  ${node.padEnd(24)} ${r.status.padEnd(16)} ${formatDuration(r.duration_ms).padStart(8)}${retries}${label}${scope}\n`);
      for (const change of changesOf(r) ?? []) process.stdout.write(`      ${formatChange(change)}\n`);
      if (store) for (const line of overBudgetLines(r)) process.stdout.write(`      ${line}\n`);
    }
  }
  process.stdout.write(`total: ${formatRunUsage(runUsageTotal(records))}\n`);
  return 0;
}

function summarize(records: readonly TraceRecord[]) {
  const byIteration = new Map<number, TraceRecord[]>();
  for (const r of records) byIteration.set(r.iteration, [...(byIteration.get(r.iteration) ?? []), r]);
  return [...byIteration].map(([iteration, list]) => ({
    iteration,
    nodes: list.length,
    duration_ms: list.reduce((sum, r) => sum + r.duration_ms, 0),
    failed: list.filter((r) => r.status === 'fail').length,
    retries: list.reduce((sum, r) => sum + Math.max(0, r.attempt - 1), 0),
  }));
}
