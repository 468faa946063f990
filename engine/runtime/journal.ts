import fs from 'node:fs';
import type { TranscriptMessage } from './backend';
import type { ContextValues } from './context';
import type { EdgeIdentity, TraceRecord } from './events';
import type { OutcomeRecord, RunState } from './state';
import type { WalkInput } from './walk-step';
import { isRecord } from '../model/json';

/**
 * What changed in the main walk's state at one node boundary. Its size does not depend on how long
 * the walk already is: records are appended or merged, never repeated.
 */
export interface StateDelta {
  readonly status: RunState['status'];
  readonly failureReason?: string;
  readonly nextNodeId: string;
  readonly incomingEdge?: EdgeIdentity;
  readonly lastCompletedNodeId?: string;
  readonly iteration: number;
  readonly step: number;
  readonly pendingFailure?: string;
  readonly elapsedBeforeMs: number;
  readonly updatedAt: string;
  /** The workspace snapshot at this boundary (when snapshots are on). */
  readonly workspaceSnapshot?: RunState['workspaceSnapshot'];
  /** A loop restart replaced the iteration's records: completedNodes and nodeOutcomes start over. */
  readonly restarted?: true;
  /** Appended to completedNodes. */
  readonly completed: readonly string[];
  /** Merged into nodeOutcomes, visits and context. */
  readonly outcomes: Readonly<Record<string, OutcomeRecord>>;
  readonly visits: Readonly<Record<string, number>>;
  readonly context: ContextValues;
  readonly contextDeleted?: readonly string[];
  /** The whole of retryCounts (it only ever holds the running node's count). */
  readonly retryCounts: Readonly<Record<string, number>>;
  /** Messages appended to each thread. */
  readonly threads: Readonly<Record<string, readonly TranscriptMessage[]>>;
}

/** One line of journal.jsonl: a node boundary, committed with the trace records written since the last. */
export interface JournalRecord {
  readonly seq: number;
  readonly trace: readonly TraceRecord[];
  readonly state: StateDelta;
  /**
   * The inputs the walk's step took since the last boundary (walk-step.ts): fed through the step
   * from the previous state they replay the walk. Absent when there were none, and in journals
   * written before the walk was a step.
   */
  readonly inputs?: readonly WalkInput[];
}

export type MutableRunState = { -readonly [K in keyof RunState]: RunState[K] };

/** Replays one boundary onto a state (a plain copy of a snapshot). */
export function applyDelta(state: MutableRunState, delta: StateDelta): void {
  state.status = delta.status;
  state.nextNodeId = delta.nextNodeId;
  state.iteration = delta.iteration;
  state.step = delta.step;
  state.elapsedBeforeMs = delta.elapsedBeforeMs;
  state.updatedAt = delta.updatedAt;
  assignOptional(state, 'failureReason', delta.failureReason);
  assignOptional(state, 'incomingEdge', delta.incomingEdge);
  assignOptional(state, 'lastCompletedNodeId', delta.lastCompletedNodeId);
  assignOptional(state, 'pendingFailure', delta.pendingFailure);
  assignOptional(state, 'workspaceSnapshot', delta.workspaceSnapshot);
  const completed = delta.restarted ? [] : [...state.completedNodes];
  completed.push(...delta.completed);
  state.completedNodes = completed;
  state.nodeOutcomes = { ...(delta.restarted ? {} : state.nodeOutcomes), ...delta.outcomes };
  state.visits = { ...state.visits, ...delta.visits };
  state.retryCounts = { ...delta.retryCounts };
  const context = { ...state.context, ...delta.context };
  for (const key of delta.contextDeleted ?? []) delete context[key];
  state.context = context;
  const threads = { ...state.threads };
  for (const [key, messages] of Object.entries(delta.threads)) threads[key] = [...(threads[key] ?? []), ...messages];
  state.threads = threads;
}

/** A state as it was committed: a snapshot's JSON with journal lines replayed onto it, without the snapshot's own marks. */
export function replayLines(snapshot: string, lines: readonly string[]): RunState {
  const state = JSON.parse(snapshot) as MutableRunState;
  for (const line of lines) applyDelta(state, (JSON.parse(line) as JournalRecord).state);
  delete state.journalSeq;
  delete state.traceBytes;
  return state;
}

function assignOptional<K extends 'failureReason' | 'incomingEdge' | 'lastCompletedNodeId' | 'pendingFailure' | 'workspaceSnapshot'>(state: MutableRunState, key: K, value: MutableRunState[K] | undefined): void {
  if (value === undefined) delete state[key];
  else state[key] = value;
}

export interface JournalContents {
  readonly records: readonly JournalRecord[];
  /** Bytes of whole records; what follows is a torn append of a killed process. */
  readonly validBytes: number;
}

class JournalError extends Error {
  override readonly name = 'JournalError';
}

/**
 * Reads journal.jsonl. A record counts once its line is complete: a line is written by one append,
 * so only the last one can be torn, and it is ignored (the node it would have committed is not
 * finished). A bad line followed by good ones is corruption, and refused.
 */
export function readJournal(file: string): JournalContents {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { records: [], validBytes: 0 };
  }
  const records: JournalRecord[] = [];
  let offset = 0;
  let lineNumber = 0;
  while (offset < text.length) {
    const end = text.indexOf('\n', offset);
    if (end < 0) break;
    lineNumber++;
    const record = parseRecord(text.slice(offset, end));
    if (!record) {
      if (end + 1 === text.length) break;
      throw new JournalError(`journal ${file} is corrupt at line ${lineNumber}; refusing to guess which nodes finished`);
    }
    records.push(record);
    offset = end + 1;
  }
  return { records, validBytes: Buffer.byteLength(text.slice(0, offset)) };
}

function parseRecord(line: string): JournalRecord | undefined {
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(data) || typeof data.seq !== 'number' || !Array.isArray(data.trace) || !isRecord(data.state)) return undefined;
  const state = data.state;
  if (typeof state.nextNodeId !== 'string' || typeof state.step !== 'number' || !Array.isArray(state.completed)) return undefined;
  return data as unknown as JournalRecord;
}

/** The open journal of a live engine: one fsynced append per node boundary. */
export class JournalWriter {
  private readonly fd: number;

  constructor(
    readonly file: string,
    validBytes: number,
  ) {
    this.fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT);
    // A torn tail from a killed engine goes, so the next record starts on a line of its own.
    fs.ftruncateSync(this.fd, validBytes);
    this.size = validBytes;
  }

  size: number;

  /** Appends and fsyncs one record; returns its line. */
  append(record: JournalRecord): string {
    const line = JSON.stringify(record);
    const bytes = Buffer.from(`${line}\n`);
    fs.writeSync(this.fd, bytes, 0, bytes.length, this.size);
    fs.fsyncSync(this.fd);
    this.size += bytes.length;
    return line;
  }

  /** Empties the journal once a snapshot holds everything it recorded. */
  clear(): void {
    fs.ftruncateSync(this.fd, 0);
    fs.fsyncSync(this.fd);
    this.size = 0;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
