import fs from 'node:fs';
import path from 'node:path';
import { checkpointText, withoutReferenceFields } from './checkpoint-record';
import { appendLineDurable, tempFileTarget, writeFileAtomic, writeJsonAtomic } from './atomic-write';
import type { TraceRecord } from './events';
import type { JournalContents, MutableRunState, StateDelta } from './journal';
import { JournalWriter, applyDelta, readJournal } from './journal';
import type { Outcome } from './outcome';
import type { RunState } from './state';
import { ProcessGroupRecords } from './process-records';
import { RunLock } from './run-lock';
import { CHECKPOINT_FORMAT } from './state';
import { checkpointShapeProblems } from './checkpoint-shape';
import { isRecord } from '../model/json';
import { READ_LIMITS, readFileChecked } from '../io/read-file-checked';
import type { RunUsageTotal } from './usage';
import { runUsageTotal } from './usage';
import { threadsFromCheckpoint } from './transcript';
import { BoundaryHistoryWriter, wholeLinesLength } from './boundary-history';
import { feedbackFile, runFile, stageDirectory, subpipelineDirectory, visitDirectory } from './run-layout';
import { SERVER_WRITTEN_FILES, VISIT_FILES } from './run-file-names';
import type { WalkInput } from './walk-step';
import { writing } from './disk-full';

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
  /** Ledger §28, from the front end that started the run (RunnerIdentity); absent for an embedded run. */
  readonly runner_version?: string;
  readonly runner_commit?: string;
  readonly provider?: string;
  /** Written at run end: the run's usage over trace.jsonl (`runUsageTotal`). */
  readonly usage_total?: RunUsageTotal;
}

/**
 * The front end that starts a run (ledger §28): its version and build commit ("unknown" rather
 * than a guess), and its provider selection; node-level `llm_provider` still routes each node.
 */
export interface RunnerIdentity {
  readonly version: string;
  readonly commit: string;
  readonly provider: string;
}

/** The run directory layout (canonical §5.6 plus the ledger's per-iteration records, trace and journal). */
export class RunDirectory {
  /** The visit (within its iteration) each node's records currently go to; see beginVisit. */
  private readonly currentVisits = new Map<string, number>();
  /** Directories this process already made: each is created (and its entry fsynced) once. */
  private readonly madeDirectories = new Set<string>();
  /** Set while this directory holds a live main walk: node boundaries commit through it. */
  private journal: OpenJournal | undefined;

  constructor(readonly root: string) {}

  get checkpointPath(): string {
    return runFile(this.root, 'checkpoint');
  }

  get tracePath(): string {
    return runFile(this.root, 'trace');
  }

  get journalPath(): string {
    return runFile(this.root, 'journal');
  }

  stageDir(nodeId: string): string {
    return stageDirectory(this.root, nodeId);
  }

  /** Where one visit's records live (`run-layout.ts` visitDirectory). */
  visitStageDir(iteration: number, nodeId: string, visit: number): string {
    return visitDirectory(this.root, iteration, nodeId, visit);
  }

  /**
   * Starts a visit of `nodeId` in `iteration` and returns its number within the iteration: the
   * first whose records hold no status.json yet (a visit a killed engine left unfinished is redone
   * in place by a resume, finished ones are never overwritten).
   */
  beginVisit(iteration: number, nodeId: string): number {
    let visit = 1;
    while (fs.existsSync(path.join(this.visitStageDir(iteration, nodeId, visit), VISIT_FILES.status))) visit++;
    this.currentVisits.set(visitKey(iteration, nodeId), visit);
    return visit;
  }

  /** The run directory of a sub-pipeline run by node `nodeId`. */
  child(nodeId: string): RunDirectory {
    return new RunDirectory(subpipelineDirectory(this.root, nodeId));
  }

  create(): void {
    this.ensureDirectory(this.root);
  }

  /**
   * Creates a directory once per process. Only the run directory's own entry is made durable: the
   * stage directories below it hold no commit point (the journal is the record of what finished).
   */
  ensureDirectory(directory: string): void {
    if (this.madeDirectories.has(directory)) return;
    const parent = path.dirname(directory);
    if (directory !== this.root && !this.madeDirectories.has(parent) && parent.startsWith(this.root)) this.ensureDirectory(parent);
    // One mkdir, no stat first: it says whether it made the directory (undefined: it was there).
    const made = fs.mkdirSync(directory, { recursive: true });
    if (made !== undefined && directory === this.root) fsyncDirectory(parent);
    this.madeDirectories.add(directory);
  }

  writeManifest(manifest: Manifest): void {
    writeJsonAtomic(runFile(this.root, 'manifest'), manifest, true);
    fsyncDirectory(this.root);
  }

  writePipelineSource(source: string): void {
    writeFileAtomic(runFile(this.root, 'pipeline'), source, true);
    fsyncDirectory(this.root);
  }

  /**
   * Starts committing node boundaries to the journal. A killed engine's leftovers go first: its
   * temp files, the torn tail of its journal, and a torn trace line; trace lines it committed but
   * did not write are appended from the journal, so trace.jsonl is again exactly what it holds.
   * A fresh run starts both empty.
   */
  openJournal(resuming: boolean): void {
    this.removeStaleTempFiles();
    const snapshot = resuming ? readSnapshotMark(this.checkpointPath) : { journalSeq: 0, traceBytes: 0 };
    const { records, validBytes } = resuming ? readJournal(this.journalPath) : { records: [], validBytes: 0 };
    const tail = records.filter((record) => record.seq > snapshot.journalSeq);
    const traceFd = fs.openSync(this.tracePath, fs.constants.O_RDWR | fs.constants.O_CREAT);
    // A trace written without a journal (a time-travel branch) counts up to its last whole line.
    const committedTrace = snapshot.traceBytes ?? wholeLinesLength(traceFd);
    fs.ftruncateSync(traceFd, committedTrace);
    const missing = tail.flatMap((record) => record.trace).map((record) => `${JSON.stringify(record)}\n`).join('');
    if (missing) fs.writeSync(traceFd, missing, committedTrace);
    fs.fsyncSync(traceFd);
    fsyncDirectory(this.root);
    this.journal = {
      writer: new JournalWriter(this.journalPath, validBytes),
      traceFd,
      traceBytes: committedTrace + Buffer.byteLength(missing),
      seq: tail.at(-1)?.seq ?? snapshot.journalSeq,
      pendingTrace: [],
      snapshotBytes: 0,
      history: new BoundaryHistoryWriter(this.root),
    };
  }

  /**
   * The commit point of a node boundary: one fsynced journal append holding the state's delta and
   * the trace records of the nodes finished since the previous boundary; only then do those records
   * reach trace.jsonl, which so never shows a node the journal does not hold. Once the journal
   * outgrows the snapshot (or on `compact`) the whole state goes to checkpoint.json and the journal
   * starts over, so each boundary costs the same however long the walk is.
   */
  commit(delta: StateDelta, fullState: () => RunState, compact = false, inputs: readonly WalkInput[] = []): Committed {
    const journal = this.journal;
    if (!journal) throw new Error('commit before openJournal');
    RunLock.fence(this.root);
    const trace = journal.pendingTrace;
    journal.pendingTrace = [];
    const line = writing(this.journalPath, () => journal.writer.append({ seq: ++journal.seq, trace, state: delta, ...(inputs.length > 0 ? { inputs } : {}) }));
    if (trace.length > 0) journal.traceBytes += writing(this.tracePath, () => fs.writeSync(journal.traceFd, trace.map((record) => `${JSON.stringify(record)}\n`).join(''), journal.traceBytes));
    // A process's first boundary in the history is a whole state, so it is always a snapshot.
    const snapshot = compact || journal.history.wantsBase || journal.writer.size > Math.max(MIN_JOURNAL_BYTES, journal.snapshotBytes) ? this.compact(journal, fullState()) : undefined;
    writing(runFile(this.root, 'boundaries'), () => journal.history.append(journal.traceBytes, line, snapshot));
    return snapshot === undefined ? { line } : { line, snapshot };
  }

  /**
   * Ends the walk on `state` without a journal line: a cancelled run's last node boundary. Trace
   * records not yet committed go with the interrupted node, which a resume runs again.
   */
  settle(state: RunState): void {
    const journal = this.journal;
    if (!journal) throw new Error('settle before openJournal');
    RunLock.fence(this.root);
    journal.pendingTrace = [];
    this.compact(journal, state);
  }

  /** Writes `state` as the snapshot holding every journal line so far, then empties the journal. */
  private compact(journal: OpenJournal, state: RunState): string {
    fs.fsyncSync(journal.traceFd);
    const snapshot = this.writeCheckpoint({ ...state, journalSeq: journal.seq, traceBytes: journal.traceBytes });
    journal.snapshotBytes = snapshot.length;
    journal.writer.clear();
    return snapshot;
  }

  closeJournal(): void {
    if (!this.journal) return;
    this.journal.writer.close();
    this.journal.history.close();
    fs.closeSync(this.journal.traceFd);
    this.journal = undefined;
  }

  /** Adds the run's usage total (computed from trace.jsonl) to the manifest at run end. */
  recordUsageTotal(): void {
    const file = runFile(this.root, 'manifest');
    let manifest: unknown;
    try {
      manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      return; // No manifest to complete (a resumed run whose directory lost it): the trace still has every record.
    }
    if (isRecord(manifest)) writeJsonAtomic(file, { ...manifest, usage_total: runUsageTotal(readTrace(this.root)) }, true);
  }

  /** Writes the checkpoint snapshot (fsynced, atomic, one fixed temp name) and returns the state's JSON (without the reference's fields). */
  writeCheckpoint(state: RunState): string {
    const json = JSON.stringify(state);
    const temp = `${this.checkpointPath}.tmp`;
    writing(this.checkpointPath, () => {
      const fd = fs.openSync(temp, 'w');
      try {
        fs.writeSync(fd, `${checkpointText(state, json)}\n`);
        fs.fsyncSync(fd);
      } catch (error) {
        // The disk refused it: no empty or half temp file is left for a resume to stumble on.
        fs.closeSync(fd);
        fs.rmSync(temp, { force: true });
        throw error;
      }
      fs.closeSync(fd);
      fs.renameSync(temp, this.checkpointPath);
    });
    fsyncDirectory(this.root);
    return json;
  }

  /**
   * Removes the temp files of writes a killed engine never renamed (checkpoint.json.tmp, name.pid.n.tmp).
   * The directory is the engine's under its run lock, except the files the server writes beside it.
   */
  removeStaleTempFiles(): void {
    let names: string[];
    try {
      names = fs.readdirSync(this.root);
    } catch {
      return;
    }
    for (const name of names) {
      if (name.endsWith('.tmp') && !SERVER_WRITTEN_FILES.has(tempFileTarget(name))) fs.rmSync(path.join(this.root, name), { force: true });
    }
  }

  /** The main walk's trace records wait for the next boundary's commit; a sub-pipeline's are appended at once. */
  appendTrace(record: TraceRecord): void {
    if (this.journal) this.journal.pendingTrace.push(record);
    else appendLineDurable(this.tracePath, JSON.stringify(record));
  }

  /** Writes a visit's file to the flat stage directory (the latest visit) and to the visit's own directory (not commit points). */
  writeStageFile(iteration: number, nodeId: string, name: string, content: string): void {
    const visit = this.currentVisits.get(visitKey(iteration, nodeId)) ?? 1;
    for (const directory of [this.stageDir(nodeId), this.visitStageDir(iteration, nodeId, visit)]) {
      this.ensureDirectory(directory);
      const file = path.join(directory, name);
      writing(file, () => fs.writeFileSync(file, content));
    }
  }

  writeStatus(iteration: number, nodeId: string, outcome: Outcome): void {
    this.writeStageFile(iteration, nodeId, VISIT_FILES.status, `${JSON.stringify(statusJson(outcome), null, 2)}\n`);
  }

  /** Where the live process groups of the run's commands are recorded. */
  get processGroups(): ProcessGroupRecords {
    return new ProcessGroupRecords(runFile(this.root, 'processGroups'));
  }

  writeFeedback(nodeId: string, content: string): void {
    const file = feedbackFile(this.root, nodeId);
    this.ensureDirectory(path.dirname(file));
    fs.writeFileSync(file, content);
  }
}

function visitKey(iteration: number, nodeId: string): string {
  return `${iteration}\u0000${nodeId}`;
}

/** What a commit wrote: its journal line, and the snapshot when it compacted. */
export interface Committed {
  readonly line: string;
  readonly snapshot?: string;
}

interface OpenJournal {
  readonly writer: JournalWriter;
  readonly traceFd: number;
  traceBytes: number;
  seq: number;
  pendingTrace: TraceRecord[];
  snapshotBytes: number;
  readonly history: BoundaryHistoryWriter;
}

/** Below this the journal is never compacted: a short run writes its snapshot at the end only. */
const MIN_JOURNAL_BYTES = 64 * 1024;

function fsyncDirectory(directory: string): void {
  const fd = fs.openSync(directory, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Which journal records and trace bytes the snapshot holds (none when there is no snapshot yet). */
function readSnapshotMark(file: string): { journalSeq: number; traceBytes?: number } {
  if (!fs.existsSync(file)) return { journalSeq: 0, traceBytes: 0 };
  const state = readCheckpointFile(file);
  return { journalSeq: state.journalSeq ?? 0, ...(state.traceBytes !== undefined ? { traceBytes: state.traceBytes } : {}) };
}

/** Appendix C status file, plus the ledger's is_explicit, attempt_count, failed_step and cycle_index. */
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
    ...(outcome.failedStep ? { failed_step: outcome.failedStep } : {}),
    ...(outcome.cycleIndex !== undefined ? { cycle_index: outcome.cycleIndex } : {}),
    ...(outcome.sessionId ? { session_id: outcome.sessionId } : {}),
  };
}

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
}

/**
 * Loads a run's state: the checkpoint snapshot with the journal's committed records replayed onto
 * it. Every way it can be unusable is a loud, specific error.
 */
export function loadCheckpoint(root: string): RunState {
  const state = readCheckpointFile(runFile(root, 'checkpoint')) as MutableRunState;
  let journal: JournalContents;
  try {
    journal = readJournal(runFile(root, 'journal'));
  } catch (error) {
    throw new CheckpointError((error as Error).message);
  }
  for (const record of journal.records) {
    if (record.seq > (state.journalSeq ?? 0)) applyDelta(state, record.state);
  }
  return state;
}

function readCheckpointFile(file: string): RunState {
  const root = path.dirname(file);
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
  return { ...withoutReferenceFields(data), threads: threads.threads } as unknown as RunState;
}

export function readTrace(root: string): TraceRecord[] {
  let text: string;
  try {
    text = readFileChecked(runFile(root, 'trace'), READ_LIMITS.runRecord);
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
