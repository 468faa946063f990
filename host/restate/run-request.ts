import type { RunResult } from '../../engine/runtime/runner';

/** What `attractor run --on restate://…` submits: everything a worker needs, on the shared file system. */
export interface RunRequest {
  /** The DOT source, so that every worker runs the pipeline that was submitted. */
  readonly source: string;
  /** Where the source lives (sub-pipelines and prompt files resolve from it), when it came from a file. */
  readonly sourcePath?: string;
  /** Absolute, on the file system every worker shares. */
  readonly cwd: string;
  /** Absolute, on the file system every worker shares. */
  readonly logsRoot: string;
  readonly params: Readonly<Record<string, string>>;
  /** The only directories the run may load files from (a server's roots), absolute on the shared file system; absent: any. */
  readonly roots?: readonly string[];
}

/** The request as a worker receives it (JSON from Restate), checked field by field. */
export function parseRunRequest(value: unknown): RunRequest {
  if (typeof value !== 'object' || value === null) throw new TypeError('a run request is a JSON object');
  const record = value as Record<string, unknown>;
  const text = (key: string): string => {
    const field = record[key];
    if (typeof field !== 'string' || field === '') throw new TypeError(`a run request needs "${key}" (a non-empty string)`);
    return field;
  };
  const params = record.params ?? {};
  const roots = record.roots;
  if (roots !== undefined && (!Array.isArray(roots) || roots.length === 0 || roots.some((root) => typeof root !== 'string' || root === ''))) throw new TypeError('a run request\'s "roots" is a non-empty list of directories');
  if (typeof params !== 'object' || params === null || Object.values(params).some((v) => typeof v !== 'string')) throw new TypeError('a run request\'s "params" maps names to strings');
  return {
    source: text('source'),
    ...(record.sourcePath !== undefined ? { sourcePath: text('sourcePath') } : {}),
    cwd: text('cwd'),
    logsRoot: text('logsRoot'),
    params: params as Record<string, string>,
    ...(roots !== undefined ? { roots: roots as string[] } : {}),
  };
}

/** How a durable run ended, as its workflow's `run` handler returns it. */
export interface DurableRunResult {
  readonly kind: 'finished';
  readonly status: RunResult['status'];
  readonly failureReason?: string;
}
