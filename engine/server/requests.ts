import type { Answer } from '../runtime/interviewer';
import { isRecord } from '../model/json';
import { HttpError } from './http-io';
import type { HoldBreakpoints } from './run-hold';

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

/** An answer as `POST …/answer` takes it (parseAnswer's inverse); a timeout is sent as skipped. */
export function answerBody(answer: Answer): Record<string, unknown> {
  switch (answer.kind) {
    case 'option':
      return { choice: answer.choice };
    case 'freeform':
      return { text: answer.text };
    case 'skipped':
    case 'timeout':
      return { skipped: true };
  }
}

/** More breakpoints than any pipeline needs is a malformed request, not a debugging session. */
const MAX_BREAKPOINTS = 1000;
const NODE_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `PUT …/breakpoints`: `{"nodes": [node id…], "edges": [{"from", "to"}…]}`, each list optional; replaces the run's set. */
export function parseBreakpoints(body: Readonly<Record<string, unknown>>): HoldBreakpoints {
  rejectUnknownKeys(body, new Set(['nodes', 'edges']));
  const { nodes = [], edges = [] } = body;
  if (!Array.isArray(nodes) || !nodes.every((node) => typeof node === 'string' && NODE_ID.test(node))) throw new HttpError(400, '"nodes" must be a list of node ids');
  if (!Array.isArray(edges)) throw new HttpError(400, '"edges" must be a list of {"from", "to"}');
  if (nodes.length + edges.length > MAX_BREAKPOINTS) throw new HttpError(400, `at most ${MAX_BREAKPOINTS} breakpoints`);
  const parsedEdges = edges.map((edge: unknown, i) => {
    if (!isRecord(edge)) throw new HttpError(400, `"edges[${i}]" must be {"from", "to"}`);
    rejectUnknownKeys(edge, new Set(['from', 'to']));
    const { from, to } = edge;
    if (typeof from !== 'string' || !NODE_ID.test(from) || typeof to !== 'string' || !NODE_ID.test(to)) throw new HttpError(400, `"edges[${i}]": "from" and "to" must be node ids`);
    return { from, to };
  });
  return { nodes: nodes as string[], edges: parsedEdges };
}

function rejectUnknownKeys(body: Readonly<Record<string, unknown>>, known: ReadonlySet<string>): void {
  const unknown = Object.keys(body).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new HttpError(400, `unknown field(s): ${unknown.join(', ')} (expected ${[...known].join(', ')})`);
}
