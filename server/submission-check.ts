import { FileScope } from '../engine/io/file-scope';
import type { Diagnostic } from '../engine/model/diagnostics';
import type { Graph } from '../engine/model/graph';
import { preparePipeline } from '../engine/prepare';

/** A submission as it is validated: plain data, so that it crosses to the validation thread. */
export interface SubmissionCheck {
  readonly source: string;
  readonly sourcePath?: string;
  readonly params: Readonly<Record<string, string>>;
  /** The server's roots: the only directories the pipeline may load files from; absent: any. */
  readonly roots?: readonly string[];
}

/** The prepared pipeline (absent when it did not parse) and its diagnostics: plain data too. */
export interface CheckedSubmission {
  readonly graph?: Graph;
  readonly diagnostics: readonly Diagnostic[];
}

/** PARSE → TRANSFORM → VALIDATE of a submission, as `admitPipeline` does it. */
export function checkSubmission({ source, sourcePath, params, roots }: SubmissionCheck): CheckedSubmission {
  const { graph, diagnostics } = preparePipeline(source, {
    ...(sourcePath ? { sourcePath } : {}),
    params,
    ...(roots ? { files: FileScope.within(roots, ROOTS_NAME) } : {}),
    mode: 'validate',
  });
  return { ...(graph ? { graph } : {}), diagnostics };
}

/** How refusals name the directories a server confines its runs to. */
export const ROOTS_NAME = "the server's roots";
