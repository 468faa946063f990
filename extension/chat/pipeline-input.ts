import path from 'node:path';
import { READ_LIMITS, readFileChecked } from '../../engine/io/read-file-checked';

/** The tools' input (JSON schema in package.json `contributes.languageModelTools`). */
export interface PipelineToolInput {
  readonly dot_file?: string;
  readonly dot_source?: string;
  readonly params?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** A pipeline to lint or run: its text, and the path it is (or will be) read from. */
export type PipelineSource =
  | { readonly ok: true; readonly text: string; readonly sourcePath: string; readonly cwd: string; readonly inline: boolean }
  | { readonly ok: false; readonly message: string };

/**
 * Resolves `dot_file` (relative to `cwd`, else the workspace root) or `dot_source`. Inline source
 * is given a path in `cwd` so its relative references (sub-pipelines) resolve like a file's.
 */
export function resolvePipelineSource(input: PipelineToolInput, workspaceRoot: string | undefined): PipelineSource {
  const base = workspaceRoot ?? process.cwd();
  const cwd = path.resolve(base, input.cwd ?? '.');
  if (input.dot_file !== undefined && input.dot_source !== undefined) return { ok: false, message: 'give either dot_file or dot_source, not both' };
  if (input.params !== undefined && (typeof input.params !== 'object' || Object.values(input.params).some((value) => typeof value !== 'string'))) {
    return { ok: false, message: 'params must be an object of string values, e.g. {"goal": "Fix the TypeError"}' };
  }
  if (typeof input.dot_source === 'string') return { ok: true, text: input.dot_source, sourcePath: path.join(cwd, 'chat-pipeline.dot'), cwd, inline: true };
  if (typeof input.dot_file !== 'string' || input.dot_file.trim() === '') return { ok: false, message: 'dot_file (a path to a .dot file) or dot_source (DOT text) is required' };
  const sourcePath = path.resolve(cwd, input.dot_file);
  try {
    return { ok: true, text: readFileChecked(sourcePath, READ_LIMITS.pipeline), sourcePath, cwd, inline: false };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}
