// The browser app's calls to `attractor serve`: same-origin fetches (the session cookie goes along;
// no token is ever in script), answers checked with the contract's checks as serve-client.ts does.
import type { Check } from '../host/protocol/guards';

/** The server refused a call; `message` is its reason. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The refusal as the server sent it (`{"error": why, …}`), for a caller that reads more than its reason. */
    readonly body: unknown = undefined,
  ) {
    super(message);
  }
}

/** Paths are relative to the page, so the app also works below a proxy's path prefix. */
export async function call(method: 'GET' | 'POST', path: string, body?: Readonly<Record<string, unknown>>): Promise<Response> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  if (response.ok) return response;
  throw await refusalOf(response);
}

/** The server's `{"error": why}` as an error. */
export async function refusalOf(response: Response): Promise<ApiError> {
  let reason = response.statusText;
  let refusal: unknown;
  try {
    refusal = await response.json();
    const error = (refusal as { error?: unknown } | null)?.error;
    if (typeof error === 'string') reason = error;
  } catch {
    // not JSON: the status line says it
  }
  return new ApiError(response.status, reason, refusal);
}

export async function json<T>(check: Check<T>, method: 'GET' | 'POST', path: string, body?: Readonly<Record<string, unknown>>): Promise<T> {
  const value: unknown = await (await call(method, path, body)).json();
  const result = check(value, '');
  if (!result.ok) throw new ApiError(502, `${method} ${path}: the server's answer does not fit the API (${result.error})`);
  return result.value;
}

export const pipelinePath = (id: string): string => `pipelines/${encodeURIComponent(id)}`;

/** What a failed call says to a person. */
export function describeFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
