// "What did this visit do to this file?" as text: one file's diff between the workspace snapshots
// taken before and after a node visit, read from the run's private store — the snapshots VS Code's
// diff editor shows (extension/snapshot-diff.ts) — for a client that has no diff editor (the
// browser app of `attractor serve`).
import type { FileChange } from '../engine/runtime/workspace-snapshot';
import { RunReader, type VisitInIteration } from './run-directory/run-reader';

/** A side of a file past this many bytes is named, not diffed: a page shows text, not megabytes. */
const MAX_DIFF_FILE_BYTES = 1024 * 1024;

type Change = FileChange['kind'];

export type VisitFileDiff =
  /** `diff`: the hunks of git's unified diff (from the first `@@`), empty for an empty file added or deleted. */
  | { readonly kind: 'text'; readonly path: string; readonly change: Change; readonly diff: string }
  | { readonly kind: 'binary'; readonly path: string; readonly change: Change }
  | { readonly kind: 'too-large'; readonly path: string; readonly change: Change; readonly bytes: number; readonly limit: number };

/** Why there is no diff to show: the request names no such visit or file (`missing`), or a path no snapshot can hold (`malformed`). */
type NoVisitDiff = { readonly kind: 'missing'; readonly reason: string } | { readonly kind: 'malformed'; readonly reason: string };

/**
 * The diff of `file` (workspace-relative, '/'-separated) across one visit. Only a file the visit
 * changed is read, and only from the run's snapshots: whatever the request names, nothing of the
 * working directory or the host is.
 */
export function visitFileDiff(runDirectory: string, visit: VisitInIteration, file: string): VisitFileDiff | NoVisitDiff {
  const malformed = snapshotPathProblem(file);
  if (malformed) return { kind: 'malformed', reason: malformed };
  const reader = new RunReader(runDirectory);
  const found = reader.visitRecord(visit);
  const named = `${visit.nodeId} (iteration ${visit.iteration}, visit ${visit.visit ?? 1})`;
  if (!found) return { kind: 'missing', reason: `the run has no visit ${named}` };
  const files = found.record.files;
  const store = reader.store();
  if (!files || !store) return { kind: 'missing', reason: `the run has no workspace snapshots around ${named}` };
  const change = store.changes(files.before, files.after).find((candidate) => candidate.path === file);
  if (!change) return { kind: 'missing', reason: `${named} did not change ${file}` };
  const bytes = Math.max(store.fileSize(files.before, file) ?? 0, store.fileSize(files.after, file) ?? 0);
  const described = { path: file, change: change.kind };
  if (bytes > MAX_DIFF_FILE_BYTES) return { kind: 'too-large', ...described, bytes, limit: MAX_DIFF_FILE_BYTES };
  const diff = store.fileDiff(files.before, files.after, file);
  const hunks = diff.search(/^@@/m);
  const header = hunks < 0 ? diff : diff.slice(0, hunks);
  if (/^Binary files .* differ$/m.test(header)) return { kind: 'binary', ...described };
  return { kind: 'text', ...described, diff: hunks < 0 ? '' : diff.slice(hunks) };
}

/** Why `file` cannot name a file of a snapshot (absolute, `.` or `..` segments, empty segments, NUL), or undefined. */
function snapshotPathProblem(file: string): string | undefined {
  if (file === '') return 'the path is empty';
  if (file.includes('\0')) return 'the path holds a NUL byte';
  if (file.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) return `"${file}" is not a workspace-relative path (no leading /, no empty, . or .. segments)`;
  return undefined;
}
