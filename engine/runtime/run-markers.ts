// The small records beside a run's state that say what the run is: a time-travel branch (branch.json), a served run (served.json).
import fs from 'node:fs';
import { writeJsonAtomic } from './atomic-write';
import { runFile } from './run-layout';
import { isRecord } from '../model/json';

/** `branch.json`: a time-travel branch's parent run and the node boundary it starts from. */
export interface BranchMarker {
  readonly parent_logs_root: string;
  readonly from_step: number;
  /** The node the branch runs first, before which it branched. */
  readonly from_node: string;
  /** Which visit of `from_node` across the parent run (NODE@N, as `resume --from` names it); absent in older branches. */
  readonly from_visit?: number;
  readonly reason: string;
  readonly created: string;
}

export function writeBranchMarker(root: string, marker: BranchMarker): void {
  writeJsonAtomic(runFile(root, 'branch'), marker);
}

/** The marker of a branch run; undefined for a run that is not a branch (or whose marker is unreadable). */
export function readBranchMarker(root: string): BranchMarker | undefined {
  let marker: unknown;
  try {
    marker = JSON.parse(fs.readFileSync(runFile(root, 'branch'), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(marker) || typeof marker.parent_logs_root !== 'string' || typeof marker.from_step !== 'number' || typeof marker.from_node !== 'string') return undefined;
  const visit = marker.from_visit;
  return {
    parent_logs_root: marker.parent_logs_root,
    from_step: marker.from_step,
    from_node: marker.from_node,
    ...(typeof visit === 'number' && Number.isInteger(visit) && visit >= 1 ? { from_visit: visit } : {}),
    reason: typeof marker.reason === 'string' ? marker.reason : '',
    created: typeof marker.created === 'string' ? marker.created : '',
  };
}

/**
 * `served.json`: the run's id on the `attractor serve` that walks it, written when the server accepts
 * the run; for a run the server handed to Restate, also the ingress it was submitted to (its workflow
 * key is the run's id).
 */
export interface ServedMarker {
  readonly served_id: string;
  readonly restate_ingress?: string;
}

export function writeServedMarker(root: string, marker: ServedMarker): void {
  fs.mkdirSync(root, { recursive: true });
  writeJsonAtomic(runFile(root, 'served'), marker);
}

/** The marker of a run a server accepted; undefined for a run started anywhere else (or whose marker is unreadable). */
export function readServedMarker(root: string): ServedMarker | undefined {
  let marker: unknown;
  try {
    marker = JSON.parse(fs.readFileSync(runFile(root, 'served'), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(marker) || typeof marker.served_id !== 'string') return undefined;
  return { served_id: marker.served_id, ...(typeof marker.restate_ingress === 'string' ? { restate_ingress: marker.restate_ingress } : {}) };
}
