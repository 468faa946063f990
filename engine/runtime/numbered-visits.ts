import type { TraceRecord } from './events';

/** A main-walk trace record with the number of its visit to its node (1-based, across iterations). */
export interface NumberedVisit {
  readonly record: TraceRecord;
  readonly visit: number;
}

export function numberedVisits(records: readonly TraceRecord[]): NumberedVisit[] {
  const seen = new Map<string, number>();
  return records
    .filter((record) => record.scope === undefined)
    .map((record) => {
      const visit = (seen.get(record.node_id) ?? 0) + 1;
      seen.set(record.node_id, visit);
      return { record, visit };
    });
}
