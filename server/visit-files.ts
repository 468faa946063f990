import { visitArtifactsMessage } from '../host/run-files';
import type { VisitArtifactsMessage } from '../host/protocol/webview';
import { HttpError } from '../host/protocol/serve-api';
import type { ServedRun } from './served-run';

const NODE_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `GET /pipelines/{id}/visit?iteration=I&node=N&visit=V`: one main-walk visit's records (prompt,
 * response, status), the files it changed in the working directory and the artifacts it stored,
 * read from the run directory as the trace panel shows them.
 */
export function visitFiles(run: ServedRun, query: URLSearchParams): Omit<VisitArtifactsMessage, 'type'> {
  const iteration = counter(query.get('iteration'), 'iteration', 0);
  const visit = counter(query.get('visit') ?? '1', 'visit', 1);
  const nodeId = query.get('node') ?? '';
  if (!NODE_ID.test(nodeId)) throw new HttpError(400, `"node" must be a node id, got "${nodeId}"`);
  const { type: _type, ...files } = visitArtifactsMessage(run.spec.logsRoot, iteration, nodeId, visit);
  return files;
}

function counter(text: string | null, name: string, min: number): number {
  const value = Number(text);
  if (text === null || !/^\d{1,9}$/.test(text) || value < min) throw new HttpError(400, `"${name}" must be an integer of at least ${min}, got "${text ?? ''}"`);
  return value;
}
