import { visitArtifactsMessage } from '../host/run-files';
import type { VisitArtifactsMessage } from '../host/protocol/webview';
import { HttpError } from '../host/protocol/serve-api';
import { visitFileDiff, type VisitFileDiff } from '../host/visit-diff';
import type { ServedRun } from './served-run';

const NODE_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `GET /pipelines/{id}/visit?iteration=I&node=N&visit=V`: one main-walk visit's records (prompt,
 * response, status), the files it changed in the working directory and the artifacts it stored,
 * read from the run directory as the trace panel shows them.
 */
export function visitFiles(run: ServedRun, query: URLSearchParams): Omit<VisitArtifactsMessage, 'type'> {
  const { iteration, nodeId, visit } = visitOf(query);
  const { type: _type, ...files } = visitArtifactsMessage(run.spec.logsRoot, iteration, nodeId, visit);
  return files;
}

/**
 * `GET /pipelines/{id}/visit/diff?iteration=I&node=N&visit=V&path=P`: one file the visit changed,
 * before ↔ after it, from the run's snapshots (host/visit-diff.ts): 400 for a path no snapshot can
 * hold, 404 for a visit or file the run has no diff of.
 */
export function visitDiff(run: ServedRun, query: URLSearchParams): VisitFileDiff {
  const file = query.get('path');
  if (file === null) throw new HttpError(400, '"path" is required: the file of the visit to diff');
  const diff = visitFileDiff(run.spec.logsRoot, visitOf(query), file);
  if (diff.kind === 'malformed') throw new HttpError(400, diff.reason);
  if (diff.kind === 'missing') throw new HttpError(404, diff.reason);
  return diff;
}

/** The visit a query names: `iteration`, `node`, `visit` (from 1, default 1). */
function visitOf(query: URLSearchParams): { iteration: number; nodeId: string; visit: number } {
  const iteration = counter(query.get('iteration'), 'iteration', 0);
  const visit = counter(query.get('visit') ?? '1', 'visit', 1);
  const nodeId = query.get('node') ?? '';
  if (!NODE_ID.test(nodeId)) throw new HttpError(400, `"node" must be a node id, got "${nodeId}"`);
  return { iteration, nodeId, visit };
}

function counter(text: string | null, name: string, min: number): number {
  const value = Number(text);
  if (text === null || !/^\d{1,9}$/.test(text) || value < min) throw new HttpError(400, `"${name}" must be an integer of at least ${min}, got "${text ?? ''}"`);
  return value;
}
