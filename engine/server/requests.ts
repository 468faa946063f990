import type { Answer } from '../runtime/interviewer';
import { isRecord } from '../model/json';
import { HttpError } from './http-io';

/** What `POST /pipelines` asks for: exactly one of inline DOT or a path to a .dot file. */
export interface Submission {
  readonly pipeline: { readonly kind: 'source'; readonly dot: string } | { readonly kind: 'path'; readonly path: string };
  readonly params: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

const SUBMISSION_KEYS = new Set(['dot', 'path', 'params', 'cwd']);

export function parseSubmission(body: Readonly<Record<string, unknown>>): Submission {
  rejectUnknownKeys(body, SUBMISSION_KEYS);
  const { dot, path, params = {}, cwd } = body;
  if ((dot === undefined) === (path === undefined)) throw new HttpError(400, 'give exactly one of "dot" (the DOT source) or "path" (a .dot file)');
  if (dot !== undefined && (typeof dot !== 'string' || dot.trim() === '')) throw new HttpError(400, '"dot" must be a non-empty string');
  if (path !== undefined && (typeof path !== 'string' || path === '')) throw new HttpError(400, '"path" must be a non-empty string');
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd === '')) throw new HttpError(400, '"cwd" must be a non-empty string');
  if (!isRecord(params)) throw new HttpError(400, '"params" must be an object of strings');
  for (const [key, value] of Object.entries(params)) {
    if (typeof value !== 'string') throw new HttpError(400, `"params.${key}" must be a string`);
  }
  return {
    pipeline: typeof dot === 'string' ? { kind: 'source', dot } : { kind: 'path', path: path as string },
    params: params as Record<string, string>,
    ...(typeof cwd === 'string' ? { cwd } : {}),
  };
}

/** `POST …/answer`: `{"choice": key|label|target}`, `{"text": free text}` or `{"skipped": true}`. */
export function parseAnswer(body: Readonly<Record<string, unknown>>): Answer {
  rejectUnknownKeys(body, new Set(['choice', 'text', 'skipped']));
  const given = Object.keys(body);
  if (given.length !== 1) throw new HttpError(400, 'give exactly one of "choice", "text" or "skipped"');
  if (typeof body.choice === 'string' && body.choice !== '') return { kind: 'option', choice: body.choice };
  if (typeof body.text === 'string') return { kind: 'freeform', text: body.text };
  if (body.skipped === true) return { kind: 'skipped' };
  throw new HttpError(400, '"choice" must be a non-empty string, "text" a string, "skipped" true');
}

function rejectUnknownKeys(body: Readonly<Record<string, unknown>>, known: ReadonlySet<string>): void {
  const unknown = Object.keys(body).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new HttpError(400, `unknown field(s): ${unknown.join(', ')} (expected ${[...known].join(', ')})`);
}
