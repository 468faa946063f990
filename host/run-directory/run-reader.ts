// What every face reads of a run directory (the Runs view, the CLI's trace/diff/resume, the graph
// view's trace panel, the server): its trace, its visits and their records, its workspace
// snapshots, where it branched from and who serves it. The file names are the engine's
// (engine/runtime/run-layout.ts); nothing else outside the engine spells them.
import fs from 'node:fs';
import path from 'node:path';
import type { TraceRecord } from '../../engine/runtime/events';
import { readTrace } from '../../engine/runtime/run-directory';
import { hasCheckpoint, runFile, stageDirectory, visitDirectory } from '../../engine/runtime/run-layout';
import { RUN_FILES, VISIT_FILES } from '../../engine/runtime/run-file-names';
import type { NumberedVisit } from '../../engine/runtime/numbered-visits';
import { numberedVisits } from '../../engine/runtime/numbered-visits';
import { readBranchMarker, readServedMarker } from '../../engine/runtime/run-markers';
import type { StoredSnapshots, VisitFiles } from '../../engine/runtime/workspace-snapshot';
import { storedSnapshots } from '../../engine/runtime/workspace-snapshot';
import { readFileHead } from '../../engine/io/read-file-checked';
import { artifactPath, readIndex } from '../../engine/runtime/artifact-store';
import type { WireArtifact } from '../protocol/webview';

/** What a file watcher follows to see runs change: the checkpoint, rewritten when a run starts, compacts its journal and ends. */
export const RUN_CHECKPOINT_GLOB = `**/${RUN_FILES.checkpoint}`;

/** One visit of a node as the trace panel names it: its iteration, the node, its number within the iteration. */
export interface VisitInIteration {
  readonly iteration: number;
  readonly nodeId: string;
  readonly visit?: number;
}

/** A visit's records (prompt.md, response.md, status.json), cut at `VISIT_RECORD_LIMIT` bytes each. */
export type VisitRecords = { -readonly [K in keyof typeof VISIT_FILES]?: string };

/** Larger records are cut: views show text, and megabytes of it help no one. */
const VISIT_RECORD_LIMIT = 1_000_000;
/** How much of an artifact's value a view shows. */
const ARTIFACT_PREVIEW_LIMIT = 4096;

/** Where a time-travel branch comes from: its parent run and the visit before which it starts. */
export interface BranchOrigin {
  readonly parent: string;
  readonly nodeId: string;
  /** NODE@N across the parent run; absent for a branch an older engine made. */
  readonly visit?: number;
  readonly step: number;
}

export class RunReader {
  constructor(readonly directory: string) {}

  /** Whether the directory holds a run at all (a checkpoint, or the manifest of one that has not finished a node yet). */
  isRun(): boolean {
    return hasCheckpoint(this.directory) || fs.existsSync(runFile(this.directory, 'manifest'));
  }

  /** Whether its first node boundary was committed: only then can it be resumed or branched. */
  hasCheckpoint(): boolean {
    return hasCheckpoint(this.directory);
  }

  /** The pipeline source the run walks, kept in the run directory. */
  get pipelineCopy(): string {
    return runFile(this.directory, 'pipeline');
  }

  get traceFile(): string {
    return runFile(this.directory, 'trace');
  }

  /** Every record of trace.jsonl (a torn last line is left out); none when there is no trace. */
  trace(): TraceRecord[] {
    return readTrace(this.directory);
  }

  /** The main walk's visits, each numbered among its node's visits across the run (NODE@N). */
  visits(): NumberedVisit[] {
    return numberedVisits(this.trace());
  }

  /** The main-walk trace record of a visit named as the trace panel names it. */
  visitRecord(visit: VisitInIteration): NumberedVisit | undefined {
    return this.visits().find(({ record }) => record.iteration === visit.iteration && record.node_id === visit.nodeId && (record.visit ?? 1) === (visit.visit ?? 1));
  }

  /** The workspace snapshots before and after a main-walk visit, when the run took them. */
  visitSnapshots(visit: VisitInIteration): VisitFiles | undefined {
    return this.visitRecord(visit)?.record.files;
  }

  /** A visit's records from its own directory; a first visit falls back to the flat stage directory (older runs). */
  visitRecords(visit: VisitInIteration): VisitRecords {
    const number = visit.visit ?? 1;
    const candidates = [visitDirectory(this.directory, visit.iteration, visit.nodeId, number), ...(number === 1 ? [stageDirectory(this.directory, visit.nodeId)] : [])];
    const directory = candidates.find((candidate) => fs.existsSync(candidate));
    const records: VisitRecords = {};
    if (!directory) return records;
    for (const [field, file] of Object.entries(VISIT_FILES) as Array<[keyof typeof VISIT_FILES, string]>) {
      const text = readRecord(path.join(directory, file));
      if (text !== undefined) records[field] = text;
    }
    return records;
  }

  /**
   * The artifacts a main-walk visit stored (canonical §5.5): those its node stored between the
   * visit's start and its trace record, each with the start of its value.
   */
  visitArtifacts(visit: VisitInIteration): WireArtifact[] {
    const stored = readIndex(this.directory).filter((info) => info.node_id === visit.nodeId);
    const record = stored.length > 0 ? this.visitRecord(visit)?.record : undefined;
    if (!record) return [];
    const end = Date.parse(record.ts);
    const start = end - record.duration_ms - 1;
    return stored
      .filter((info) => Date.parse(info.stored_at) >= start && Date.parse(info.stored_at) <= end)
      .map((info) => {
        const file = artifactPath(info.id);
        return { id: info.id, name: info.name, sizeBytes: info.size_bytes, path: file, preview: readRecord(path.join(this.directory, file), ARTIFACT_PREVIEW_LIMIT) ?? '' };
      });
  }

  /** The run's private snapshot store, read with hardened git: nothing in the run directory can make reading it run a command. */
  store(): StoredSnapshots | undefined {
    return storedSnapshots(this.directory);
  }

  /** Where the run branched from, when it is a time-travel branch. */
  branchOrigin(): BranchOrigin | undefined {
    const marker = readBranchMarker(this.directory);
    if (!marker) return undefined;
    return { parent: marker.parent_logs_root, nodeId: marker.from_node, step: marker.from_step, ...(marker.from_visit !== undefined ? { visit: marker.from_visit } : {}) };
  }

  /** The run's id on the `attractor serve` that walks it; undefined for a run started anywhere else. */
  servedId(): string | undefined {
    return readServedMarker(this.directory)?.served_id;
  }
}

function readRecord(file: string, limit = VISIT_RECORD_LIMIT): string | undefined {
  try {
    const { text, omittedBytes } = readFileHead(file, limit);
    return omittedBytes > 0 ? `${text}\n… (${omittedBytes} more bytes in ${file})` : text;
  } catch {
    return undefined;
  }
}
