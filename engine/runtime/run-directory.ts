import fs from 'node:fs';
import path from 'node:path';
import { appendLineDurable, writeFileAtomic, writeJsonAtomic } from './atomic-write';
import type { TraceRecord } from './events';
import type { Outcome } from './outcome';
import type { RunState } from './state';
import { CHECKPOINT_FORMAT } from './state';
import { checkpointShapeProblems } from './checkpoint-shape';
import { isRecord } from '../model/json';
import { READ_LIMITS, readFileChecked, tryReadFileChecked } from '../io/read-file-checked';
import type { RunUsageTotal } from './usage';
import { runUsageTotal } from './usage';
import { threadsFromCheckpoint } from './transcript';

export interface Manifest {
  readonly graph_name: string;
  readonly goal: string;
  readonly start_time: string;
  readonly node_count: number;
  readonly edge_count: number;
  readonly engine_version: string;
  readonly engine_commit: string;
  readonly run_id: string;
  readonly source_path?: string;
  readonly cwd: string;
  readonly backend: string;
  /** Written at run end: the run's usage over trace.jsonl (`runUsageTotal`). */
  readonly usage_total?: RunUsageTotal;
}

/** The run directory layout (canonical §5.6 plus the ledger's per-iteration records and trace). */
export class RunDirectory {
  constructor(readonly root: string) {}

  get checkpointPath(): string {
    return path.join(this.root, 'checkpoint.json');
  }

  get tracePath(): string {
    return path.join(this.root, 'trace.jsonl');
  }

  stageDir(nodeId: string): string {
    return path.join(this.root, safeSegment(nodeId));
  }

  iterationStageDir(iteration: number, nodeId: string): string {
    return path.join(this.root, `iteration_${iteration}`, safeSegment(nodeId));
  }

  /** The run directory of a sub-pipeline run by node `nodeId`. */
  child(nodeId: string): RunDirectory {
    return new RunDirectory(path.join(this.stageDir(nodeId), 'subpipeline'));
  }

  create(): void {
    fs.mkdirSync(this.root, { recursive: true });
  }

  writeManifest(manifest: Manifest): void {
    writeJsonAtomic(path.join(this.root, 'manifest.json'), manifest);
  }

  /** Adds the run's usage total (computed from trace.jsonl) to the manifest at run end. */
  recordUsageTotal(): void {
    const file = path.join(this.root, 'manifest.json');
    let manifest: unknown;
    try {
      manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      return; // No manifest to complete (a resumed run whose directory lost it): the trace still has every record.
    }
    if (isRecord(manifest)) writeJsonAtomic(file, { ...manifest, usage_total: runUsageTotal(readTrace(this.root)) });
  }

  /** Writes the checkpoint (fsynced, compact: its size grows with the run) and returns its JSON. */
  writeCheckpoint(state: RunState): string {
    const json = JSON.stringify(state);
    writeFileAtomic(this.checkpointPath, `${json}\n`, true);
    return json;
  }

  appendTrace(record: TraceRecord): void {
    appendLineDurable(this.tracePath, JSON.stringify(record));
  }

  /** Writes a visit's file to the flat stage directory and to the iteration's copy. */
  writeStageFile(iteration: number, nodeId: string, name: string, content: string): void {
    writeFileAtomic(path.join(this.stageDir(nodeId), name), content);
    writeFileAtomic(path.join(this.iterationStageDir(iteration, nodeId), name), content);
  }

  writeStatus(iteration: number, nodeId: string, outcome: Outcome): void {
    this.writeStageFile(iteration, nodeId, 'status.json', `${JSON.stringify(statusJson(outcome), null, 2)}\n`);
  }

  /**
   * A tool's process group outlives a killed engine (it has its own group so cancel can kill its
   * whole tree). Recording it lets a resume reap the orphan before re-running the node.
   */
  recordProcessGroup(nodeId: string, group: number): void {
    writeFileAtomic(path.join(this.stageDir(nodeId), PROCESS_GROUP_FILE), `${group}\n`);
  }

  clearProcessGroup(nodeId: string): void {
    fs.rmSync(path.join(this.stageDir(nodeId), PROCESS_GROUP_FILE), { force: true });
  }

  /** Process groups left running by a previous, killed engine process. */
  orphanProcessGroups(): number[] {
    const groups: number[] = [];
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(this.root, { withFileTypes: true });
    } catch {
      return groups;
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const file = path.join(this.root, entry.name, PROCESS_GROUP_FILE);
      const read = tryReadFileChecked(file, 64);
      const group = Number.parseInt('text' in read ? read.text : '', 10);
      if (Number.isInteger(group) && group > 1) groups.push(group);
      fs.rmSync(file, { force: true });
    }
    return groups;
  }

  writeFeedback(nodeId: string, content: string): void {
    writeFileAtomic(path.join(this.root, 'feedback', `${safeSegment(nodeId)}.md`), content);
  }
}

/** Appendix C status file, plus the ledger's is_explicit and attempt_count. */
function statusJson(outcome: Outcome): Record<string, unknown> {
  return {
    outcome: outcome.status,
    preferred_label: outcome.preferredLabel ?? '',
    suggested_next_ids: outcome.suggestedNextIds ?? [],
    context_updates: outcome.contextUpdates ?? {},
    notes: outcome.notes ?? '',
    ...(outcome.failureReason ? { failure_reason: outcome.failureReason } : {}),
    is_explicit: outcome.isExplicit,
    ...(outcome.attemptCount !== undefined ? { attempt_count: outcome.attemptCount } : {}),
    ...(outcome.sessionId ? { session_id: outcome.sessionId } : {}),
  };
}

const PROCESS_GROUP_FILE = 'running.pgid';

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
}

/** Loads and checks a checkpoint; every way it can be unusable is a loud, specific error. */
export function loadCheckpoint(root: string): RunState {
  const file = path.join(root, 'checkpoint.json');
  if (!fs.existsSync(file)) throw new CheckpointError(`no checkpoint at ${file}: is ${root} a run directory?`);
  let text: string;
  try {
    text = readFileChecked(file, READ_LIMITS.runRecord);
  } catch (error) {
    throw new CheckpointError(`checkpoint unusable: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CheckpointError(`checkpoint ${file} is corrupt (${(error as Error).message}); refusing to guess where the run was`);
  }
  if (!isRecord(data) || data.format !== CHECKPOINT_FORMAT) {
    throw new CheckpointError(`checkpoint ${file} is not an ${CHECKPOINT_FORMAT} checkpoint (written by another engine?)`);
  }
  const problems = checkpointShapeProblems(data);
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join('; ');
    throw new CheckpointError(`checkpoint ${file} is corrupt: ${shown}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}. Nothing was run.`);
  }
  const threads = threadsFromCheckpoint(data.threads as Record<string, unknown>);
  if (!threads.ok) throw new CheckpointError(`checkpoint ${file} is corrupt: thread \`${threads.thread}\` is not a list of transcript messages`);
  return { ...data, threads: threads.threads } as unknown as RunState;
}

export function readTrace(root: string): TraceRecord[] {
  let text: string;
  try {
    text = readFileChecked(path.join(root, 'trace.jsonl'), READ_LIMITS.runRecord);
  } catch {
    return [];
  }
  const records: TraceRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      records.push(JSON.parse(line) as TraceRecord);
    } catch {
      // A torn final line from a killed process; everything before it is intact.
    }
  }
  return records;
}

/** Node ids are identifiers by grammar, but a warned-about quoted id must not escape the run directory. */
function safeSegment(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '_');
}
