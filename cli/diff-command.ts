import { overBudgetLines, parseVisitTarget, visitChanges } from './visit-files';
import { formatChange } from '../host/file-changes';
import { RunReader } from '../host/run-directory/run-reader';

class DiffUsageError extends Error {
  override readonly name = 'DiffUsageError';
}

/** `attractor diff RUN NODE[@visit]`: the files one node visit added, changed and deleted, then a unified diff. */
export function diffCommand(runDirectory: string, target: string, options: { json?: boolean }): number {
  const { nodeId, visit } = parseVisitTarget(target);
  const reader = new RunReader(runDirectory);
  const visits = reader.visits().filter((v) => v.record.node_id === nodeId);
  if (visits.length === 0) throw new DiffUsageError(`${nodeId} has no visit in the trace of ${runDirectory}`);
  const chosen = visit === undefined ? visits.at(-1) : visits.find((v) => v.visit === visit);
  if (!chosen) throw new DiffUsageError(`${nodeId} was visited ${visits.length} time(s); there is no visit ${visit ?? ''}`);
  const store = reader.store();
  const { files } = chosen.record;
  if (!store) throw new DiffUsageError(`${runDirectory} has no workspace snapshots (snapshots were off for this run)`);
  if (!files) throw new DiffUsageError(`${runDirectory} has no workspace snapshots for ${nodeId}@${chosen.visit} (snapshots had stopped or could not be taken then: the run's warnings say why)`);
  const changes = visitChanges(store, chosen.record) ?? [];
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ node_id: nodeId, visit: chosen.visit, iteration: chosen.record.iteration, before: files.before, after: files.after, changes, ...(files.over_budget ? { over_budget: files.over_budget } : {}), diff: store.unifiedDiff(files.before, files.after) })}\n`);
    return 0;
  }
  process.stdout.write(`${nodeId}@${chosen.visit} (iteration ${chosen.record.iteration}): ${changes.length === 0 ? 'no file changes' : `${changes.length} file(s) changed`}\n`);
  for (const change of changes) process.stdout.write(`  ${formatChange(change)}\n`);
  for (const line of overBudgetLines(chosen.record)) process.stdout.write(`  ${line}\n`);
  if (changes.length > 0) process.stdout.write(`\n${store.unifiedDiff(files.before, files.after)}`);
  return 0;
}
