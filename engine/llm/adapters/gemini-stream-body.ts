import { geminiStreamFailure } from './gemini-errors';

/**
 * The fetch Google's SDK is given. A streaming request (`alt=sse`) may be answered with a plain
 * JSON body: a GenerateContentResponse (a server that ignored `alt=sse` as generateContent) or an
 * array of them (streamGenerateContent's JSON-array form). The SDK reads only `data:` records and
 * would drop such a body as an empty or broken stream; this re-frames it as the SSE records it
 * stands for, so the reply is read as what it is.
 */
export async function fetchReadingPlainJson(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  const url = input instanceof Request ? input.url : String(input);
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || !new URL(url).searchParams.has('alt', 'sse') || !type.includes('application/json')) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw geminiStreamFailure(`a streaming request was answered with JSON that does not parse: ${text.slice(0, 200)}`);
  }
  const records = (Array.isArray(body) ? body : [body]).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('');
  const headers = new Headers(response.headers);
  headers.set('content-type', 'text/event-stream');
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(records, { status: response.status, statusText: response.statusText, headers });
}
