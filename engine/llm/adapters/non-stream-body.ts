/**
 * A server may answer a streaming request with one plain JSON body (proxies and OpenAI-compatible
 * servers that ignore `stream: true`). The SDKs would read it as an empty event stream; this returns
 * the parsed body instead, or undefined when the reply is anything but JSON (an event stream).
 */
export async function nonStreamBody(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  if (!/^application\/(.+\+)?json\b/i.test(type.trim())) return undefined;
  return (await response.json()) as unknown;
}
