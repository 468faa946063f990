// Where each record of a run directory lives (the names are in run-file-names.ts).
import fs from 'node:fs';
import path from 'node:path';
import { RUN_FILES, SUBPIPELINE_DIRECTORY } from './run-file-names';

export function runFile(root: string, file: keyof typeof RUN_FILES): string {
  return path.join(root, RUN_FILES[file]);
}

/** Whether `root` holds a run: its first commit wrote the checkpoint (a manifest alone is a run that never finished a node). */
export function hasCheckpoint(root: string): boolean {
  return fs.existsSync(runFile(root, 'checkpoint'));
}

/** The flat stage directory of a node: its latest visit's records. */
export function stageDirectory(root: string, nodeId: string): string {
  return path.join(root, safeSegment(nodeId));
}

/** Where one visit's records live: `iteration_N/<node>/` for the first visit in an iteration, `iteration_N/<node>@K/` for the K-th. */
export function visitDirectory(root: string, iteration: number, nodeId: string, visit: number): string {
  const first = path.join(root, `iteration_${iteration}`, safeSegment(nodeId));
  return visit === 1 ? first : `${first}@${visit}`;
}

export function subpipelineDirectory(root: string, nodeId: string): string {
  return path.join(stageDirectory(root, nodeId), SUBPIPELINE_DIRECTORY);
}

/** The feedback a critic's node hands on at a loop restart. */
export function feedbackFile(root: string, nodeId: string): string {
  return path.join(runFile(root, 'feedback'), `${safeSegment(nodeId)}.md`);
}

/** Node ids are identifiers by grammar, but a warned-about quoted id must not escape the run directory. */
function safeSegment(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '_');
}
