import fs from 'node:fs';
import { writeFileAtomic } from './atomic-write';
import type { RunState } from './state';
import type { TraceRecord } from './events';
import { RunDirectory } from './run-directory';
import { runFile } from './run-layout';
import { writeBranchMarker } from './run-markers';
import { checkpointText } from './checkpoint-record';
import { READ_LIMITS, readFileChecked } from '../io/read-file-checked';

/** A node boundary a branch starts from: the state then, and how many trace.jsonl lines held the records up to it. */
export interface BranchPoint {
  readonly state: RunState;
  readonly traceLines: number;
}

/**
 * Time travel never rewrites a run: the new branch is a sibling run directory holding the pipeline,
 * the manifest, the parent's trace up to the restored boundary, a `branch.json` naming its parent,
 * and the restored checkpoint, so it is itself resumable with `attractor resume`.
 */
export function forkRunDirectory(parentRoot: string, target: string, from: BranchPoint, reason: string): void {
  fs.mkdirSync(target, { recursive: true });
  for (const file of ['pipeline', 'manifest'] as const) {
    const source = runFile(parentRoot, file);
    if (fs.existsSync(source)) writeFileAtomic(runFile(target, file), readFileChecked(source, READ_LIMITS.runRecord));
  }
  const lines = readTraceLines(parentRoot).slice(0, from.traceLines);
  writeFileAtomic(runFile(target, 'trace'), lines.map((line) => `${line}\n`).join(''));
  copyVisitDirectories(parentRoot, target, lines);
  // The restored context may refer to artifacts (canonical §5.5): the branch keeps its own copies.
  if (fs.existsSync(runFile(parentRoot, 'artifacts'))) fs.cpSync(runFile(parentRoot, 'artifacts'), runFile(target, 'artifacts'), { recursive: true });
  const fromNode = from.state.nextNodeId;
  writeBranchMarker(target, { parent_logs_root: parentRoot, from_step: from.state.step, from_node: fromNode, from_visit: (from.state.visits[fromNode] ?? 0) + 1, reason, created: new Date().toISOString() });
  writeFileAtomic(runFile(target, 'checkpoint'), `${checkpointText({ ...from.state, status: 'running' })}\n`);
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
  const file = runFile(runDirectory, 'trace');
  return fs.existsSync(file) ? readFileChecked(file, READ_LIMITS.runRecord).split('\n').filter(Boolean) : [];
}

/** The first unused `<root>.<kind>-<n>` sibling of a run directory. */
export function siblingRunDirectory(root: string, kind: 'branch' | 'restart'): string {
  for (let n = 1; ; n++) {
    const candidate = `${root}.${kind}-${n}`;
    if (!fs.existsSync(candidate)) return candidate;
  }
}
