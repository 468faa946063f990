import { geminiStreamFailure } from './gemini-errors';
import { nonStreamBody } from './non-stream-body';

/**
 * The fetch Google's SDK is given. A streaming request (`alt=sse`) may be answered with a plain
 * JSON body (`nonStreamBody`, as for the other providers): a GenerateContentResponse (a server that
 * ignored `alt=sse` as generateContent) or an array of them (streamGenerateContent's JSON-array
 * form). Google's SDK takes no pre-read response, reads only `data:` records and would drop such a
 * body as an empty or broken stream; this re-frames it as the SSE records it stands for, so the
 * reply goes through the one stream reader (continuation hops included).
 */
export async function fetchReadingPlainJson(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  const url = input instanceof Request ? input.url : String(input);
  if (!response.ok || !new URL(url).searchParams.has('alt', 'sse')) return response;
  let body: unknown;
  try {
    body = await nonStreamBody(response);
  } catch (error) {
    throw geminiStreamFailure(`a streaming request was answered with JSON that does not parse (${(error as Error).message})`);
  }
  if (body === undefined) return response;
  const records = (Array.isArray(body) ? body : [body]).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('');
  const headers = new Headers(response.headers);
  headers.set('content-type', 'text/event-stream');
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(records, { status: response.status, statusText: response.statusText, headers });
}
