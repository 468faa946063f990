import type { RunState } from './state';

/**
 * Canonical §5.3's checkpoint fields, written beside ours so tools written for the reference read
 * our checkpoints. They are derived from the state at every write and dropped at every read: the
 * state's own fields (`completedNodes`, `lastCompletedNodeId`, `updatedAt`) stay the truth.
 */
interface ReferenceFields {
  readonly timestamp: string;
  /** The last completed node ('' before any). */
  readonly current_node: string;
  readonly completed_nodes: readonly string[];
}

const REFERENCE_KEYS = ['timestamp', 'current_node', 'completed_nodes'] as const satisfies ReadonlyArray<keyof ReferenceFields>;

/**
 * checkpoint.json's text for `state`, given `json`, the state as JSON (which the engine keeps, and
 * reparses, without the reference's fields): those fields appended, with no second serialisation.
 */
export function checkpointText(state: RunState, json: string = JSON.stringify(state)): string {
  const reference: ReferenceFields = { timestamp: state.updatedAt, current_node: state.lastCompletedNodeId ?? '', completed_nodes: state.completedNodes };
  return `${json.slice(0, -1)},${JSON.stringify(reference).slice(1)}`;
}

/** A read checkpoint without the derived fields, so no stale copy rides along into the next write. */
export function withoutReferenceFields(data: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const copy = { ...data };
  for (const key of REFERENCE_KEYS) delete copy[key];
  return copy;
}
