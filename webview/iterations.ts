// Groups trace entries by iteration and summarises each one for the timeline and the descent chart.
import type { StageStatus } from '../engine/model/stage-status';
import type { TraceEntry } from '../host/protocol/webview';

export interface IterationSummary {
  readonly iteration: number;
  readonly entries: readonly TraceEntry[];
  readonly durationMs: number;
  /** Entries that did not succeed: the descent curve should fall towards zero as a loop converges. */
  readonly unsuccessful: number;
  /** The last outcome of each gate node in this iteration. */
  readonly gates: ReadonlyArray<{ readonly nodeId: string; readonly status: StageStatus; readonly label?: string }>;
}

/**
 * `gateNodes` are the nodes whose verdict decides an iteration (goal gates). When a graph has none,
 * each iteration's last entry stands in: it is the decision that ended the pass.
 */
export function summariseIterations(entries: readonly TraceEntry[], gateNodes: ReadonlySet<string>): IterationSummary[] {
  const byIteration = new Map<number, TraceEntry[]>();
  for (const entry of entries) {
    const list = byIteration.get(entry.iteration) ?? [];
    list.push(entry);
    byIteration.set(entry.iteration, list);
  }
  return [...byIteration.entries()]
    .sort(([a], [b]) => a - b)
    .map(([iteration, list]) => {
      const lastByGate = new Map<string, TraceEntry>();
      for (const entry of list) if (gateNodes.has(entry.node_id)) lastByGate.set(entry.node_id, entry);
      const last = list[list.length - 1];
      const gateEntries = gateNodes.size > 0 ? [...lastByGate.values()] : last ? [last] : [];
      return {
        iteration,
        entries: list,
        durationMs: list.reduce((sum, entry) => sum + entry.duration_ms, 0),
        unsuccessful: list.filter((entry) => entry.status !== 'success' && entry.status !== 'skipped').length,
        gates: gateEntries.map((entry) => ({ nodeId: entry.node_id, status: entry.status, ...(entry.preferred_label ? { label: entry.preferred_label } : {}) })),
      };
    });
}
