import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from './atomic-write';
import type { RunState } from './state';
import type { TraceRecord } from './events';
import { RunDirectory } from './run-directory';
import { READ_LIMITS, readFileChecked } from '../io/read-file-checked';

/** A node boundary a branch starts from: the state then, and how many trace.jsonl lines held the records up to it. */
export interface BranchPoint {
  readonly state: RunState;
  readonly traceLines: number;
}

interface BranchMarker {
  readonly parent_logs_root: string;
  readonly from_step: number;
  readonly from_node: string;
  readonly reason: string;
  readonly created: string;
}

/**
 * Time travel never rewrites a run: the new branch is a sibling run directory holding the pipeline,
 * the manifest, the parent's trace up to the restored boundary, a `branch.json` naming its parent,
 * and the restored checkpoint, so it is itself resumable with `attractor resume`.
 */
export function forkRunDirectory(parentRoot: string, target: string, from: BranchPoint, reason: string): void {
  fs.mkdirSync(target, { recursive: true });
  for (const name of ['pipeline.dot', 'manifest.json']) {
    const source = path.join(parentRoot, name);
    if (fs.existsSync(source)) writeFileAtomic(path.join(target, name), readFileChecked(source, READ_LIMITS.runRecord));
  }
  const lines = readTraceLines(parentRoot).slice(0, from.traceLines);
  writeFileAtomic(path.join(target, 'trace.jsonl'), lines.map((line) => `${line}\n`).join(''));
  copyVisitDirectories(parentRoot, target, lines);
  const marker: BranchMarker = { parent_logs_root: parentRoot, from_step: from.state.step, from_node: from.state.nextNodeId, reason, created: new Date().toISOString() };
  writeJsonAtomic(path.join(target, 'branch.json'), marker);
  writeJsonAtomic(path.join(target, 'checkpoint.json'), { ...from.state, status: 'running' });
}

/**
 * The records of the visits the branch inherits (`iteration_N/<node>[@K]/`), so its own visits are
 * numbered on from them (a visit's number is the first directory without a status.json) and the
 * trace panel shows the inherited visits' files too.
 */
function copyVisitDirectories(parentRoot: string, target: string, traceLines: readonly string[]): void {
  const parent = new RunDirectory(parentRoot);
  const branch = new RunDirectory(target);
  for (const line of traceLines) {
    const record = JSON.parse(line) as Pick<TraceRecord, 'scope' | 'iteration' | 'node_id' | 'visit'>;
    if (record.scope !== undefined) continue;
    const from = parent.visitStageDir(record.iteration, record.node_id, record.visit ?? 1);
    if (fs.existsSync(from)) fs.cpSync(from, branch.visitStageDir(record.iteration, record.node_id, record.visit ?? 1), { recursive: true });
  }
}

/** How many whole trace.jsonl lines the first `bytes` bytes of a run's trace hold. */
export function traceLinesWithin(runDirectory: string, bytes: number): number {
  let count = 0;
  let remaining = bytes;
  for (const line of readTraceLines(runDirectory)) {
    remaining -= Buffer.byteLength(line) + 1;
    if (remaining < 0) break;
    count++;
  }
  return count;
}

function readTraceLines(runDirectory: string): string[] {
  const file = path.join(runDirectory, 'trace.jsonl');
  return fs.existsSync(file) ? readFileChecked(file, READ_LIMITS.runRecord).split('\n').filter(Boolean) : [];
}

/** The first unused `<root>.<kind>-<n>` sibling of a run directory. */
export function siblingRunDirectory(root: string, kind: 'branch' | 'restart'): string {
  for (let n = 1; ; n++) {
    const candidate = `${root}.${kind}-${n}`;
    if (!fs.existsSync(candidate)) return candidate;
  }
}
