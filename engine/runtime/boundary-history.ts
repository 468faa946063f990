import fs from 'node:fs';
import type { JournalRecord, MutableRunState } from './journal';
import { applyDelta } from './journal';
import type { RunState } from './state';
import { isRecord } from '../model/json';
import { runFile } from './run-layout';
import { readBranchMarker } from './run-markers';

/**
 * `boundaries.jsonl`: every node boundary of a run's main walk, kept for `resume --from`. The
 * journal is emptied at each compaction; this file never is. An engine process writes one `base`
 * line (its first boundary, the whole state) and then one `delta` line per boundary (the journal's
 * own line, so a step costs one more append of a size independent of the walk). A line carries the
 * length of trace.jsonl at its boundary. Not fsynced: a boundary a crash loses is only not offered.
 */

/** One node boundary of the main walk, as a run directory recorded it. */
export interface RecordedBoundary {
  /** The state just before the node `state.nextNodeId` ran (its step is `state.step`). */
  readonly state: RunState;
  /** The bytes of the run's trace.jsonl that hold the records up to this boundary. */
  readonly traceBytes: number;
}

export class BoundaryHistoryWriter {
  private readonly fd: number;
  private size: number;
  private needsBase = true;

  constructor(runDirectory: string) {
    this.fd = fs.openSync(runFile(runDirectory, 'boundaries'), fs.constants.O_RDWR | fs.constants.O_CREAT);
    // A torn last line (a killed engine) is cut, so the base this process writes starts a line of its own.
    this.size = wholeLinesLength(this.fd);
    fs.ftruncateSync(this.fd, this.size);
  }

  /** True until this process wrote its base line: its first boundary must be a snapshot. */
  get wantsBase(): boolean {
    return this.needsBase;
  }

  /** `journalLine`: the JournalRecord line of the boundary; `snapshot`: the whole state's JSON, when written. */
  append(traceBytes: number, journalLine: string, snapshot: string | undefined): void {
    const line = this.needsBase && snapshot !== undefined ? `{"traceBytes":${traceBytes},"base":${snapshot}}\n` : `{"traceBytes":${traceBytes},"delta":${journalLine}}\n`;
    if (snapshot !== undefined) this.needsBase = false;
    this.size += fs.writeSync(this.fd, line, this.size);
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/**
 * The recorded boundaries of a run, one per step (the latest when a resume recorded a step again),
 * in step order, for the states a walk can continue from: running, between two nodes (not between
 * retry attempts). A time-travel branch's own history starts at its branch point; the boundaries
 * before it are its parent's (`branch.json`), whose objects and trace prefix the branch shares.
 */
export function recordedBoundaries(runDirectory: string): RecordedBoundary[] {
  const own = ownBoundaries(runDirectory);
  const parent = branchParent(runDirectory);
  const first = own[0]?.state.step ?? Number.POSITIVE_INFINITY;
  const inherited = parent ? recordedBoundaries(parent.root).filter((b) => b.state.step < Math.min(first, parent.fromStep)) : [];
  return [...inherited, ...own];
}

function ownBoundaries(runDirectory: string): RecordedBoundary[] {
  let text: string;
  try {
    text = fs.readFileSync(runFile(runDirectory, 'boundaries'), 'utf8');
  } catch {
    return [];
  }
  const byStep = new Map<number, RecordedBoundary>();
  let state: MutableRunState | undefined;
  for (const line of text.split('\n')) {
    const entry = parseLine(line);
    if (!entry) continue;
    if ('base' in entry) state = structuredClone(entry.base) as MutableRunState;
    else if (state) applyDelta(state, entry.delta.state);
    else continue;
    if (state.status !== 'running' || Object.keys(state.retryCounts).length > 0) continue;
    const frozen: MutableRunState = structuredClone(state);
    delete frozen.journalSeq;
    delete frozen.traceBytes;
    delete frozen.pid;
    byStep.set(frozen.step, { state: frozen, traceBytes: entry.traceBytes });
  }
  return [...byStep.values()].sort((a, b) => a.state.step - b.state.step);
}

/**
 * The walk of the first engine process that recorded boundaries here: its first boundary's whole
 * state and the journal records after it, whose inputs, fed through the walk's step, replay it.
 */
export function recordedWalk(runDirectory: string): { readonly base: RunState; readonly records: readonly JournalRecord[] } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(runFile(runDirectory, 'boundaries'), 'utf8');
  } catch {
    return undefined;
  }
  let base: RunState | undefined;
  const records: JournalRecord[] = [];
  for (const line of text.split('\n')) {
    const entry = parseLine(line);
    if (!entry) continue;
    if ('base' in entry) {
      if (base) break;
      base = entry.base;
    } else if (base) records.push(entry.delta);
  }
  return base ? { base, records } : undefined;
}

type HistoryLine = { readonly traceBytes: number } & ({ readonly base: RunState } | { readonly delta: JournalRecord });

function parseLine(line: string): HistoryLine | undefined {
  if (!line) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    return undefined; // A torn last line.
  }
  if (!isRecord(data) || typeof data.traceBytes !== 'number') return undefined;
  if (isRecord(data.base) && typeof data.base.step === 'number') return data as unknown as HistoryLine;
  if (isRecord(data.delta) && isRecord(data.delta.state)) return data as unknown as HistoryLine;
  return undefined;
}

function branchParent(runDirectory: string): { root: string; fromStep: number } | undefined {
  const marker = readBranchMarker(runDirectory);
  return marker && { root: marker.parent_logs_root, fromStep: marker.from_step };
}

/** The length of a file up to its last newline. */
export function wholeLinesLength(fd: number): number {
  const size = fs.fstatSync(fd).size;
  if (size === 0) return 0;
  const buffer = Buffer.alloc(size);
  fs.readSync(fd, buffer, 0, size, 0);
  return buffer.lastIndexOf(0x0a) + 1;
}
