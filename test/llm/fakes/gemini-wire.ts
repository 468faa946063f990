import type { Reply } from './fake-http-server';
import type { FakeTurn } from './openai-wire';

/** Google's SSE frames records with CRLF pairs. */
const data = (payload: unknown): string => `data: ${JSON.stringify(payload)}\r\n\r\n`;
const argumentObject = (args: unknown): unknown => (typeof args === 'string' ? JSON.parse(args) : args);

export interface GeminiReplyOptions {
  readonly model?: string;
  /** The thought signature on the first functionCall part (Gemini 3 signs each step's first call). */
  readonly signature?: string;
  readonly finishReason?: string;
}

const statusNames: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/**
 * The GenerateContentResponse chunks one turn streams: text in two chunks, whole functionCalls,
 * finishReason and usage last. `usage: null` leaves usageMetadata out of every chunk; `truncate`
 * ends before the chunk that carries the finishReason.
 */
export function generateContentChunks(turn: FakeTurn, options: GeminiReplyOptions = {}): Record<string, unknown>[] {
  const base = { modelVersion: options.model ?? 'gemini-2.5-flash', responseId: 'resp-fake' };
  const usage = turn.usage === null ? undefined : (turn.usage ?? { input: 100, output: 20 });
  const running = (output: number): Record<string, unknown> => (usage ? { usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: output, totalTokenCount: usage.input + output } } : {});
  const chunk = (parts: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({ candidates: [{ content: { parts, role: 'model' }, index: 0, ...extra }], ...base });
  const chunks: Record<string, unknown>[] = [];
  if (turn.text) {
    const half = Math.ceil(turn.text.length / 2);
    chunks.push({ ...chunk([{ text: turn.text.slice(0, half) }]), ...running(1) });
    if (turn.hang) return chunks;
    chunks.push({ ...chunk([{ text: turn.text.slice(half) }]), ...running(2) });
  }
  const calls = (turn.toolCalls ?? []).map((call, index) => ({
    functionCall: { ...(call.id ? { id: call.id } : {}), name: call.name, args: argumentObject(call.arguments) },
    ...(index === 0 && options.signature ? { thoughtSignature: options.signature } : {}),
  }));
  if (calls.length > 0) chunks.push({ ...chunk(calls), ...running(3) });
  if (turn.truncate) return chunks;
  chunks.push({ ...chunk([], { finishReason: options.finishReason ?? 'STOP' }), ...running(usage?.output ?? 0) });
  return chunks;
}

/** A streamGenerateContent reply (`alt=sse`). */
export function geminiStream(turn: FakeTurn, options: GeminiReplyOptions = {}): Reply {
  return { kind: 'sse', records: generateContentChunks(turn, options).map(data), ...(turn.hang ? { hang: true } : {}) };
}

/** The same reply as one plain JSON body: the array form streamGenerateContent answers without `alt=sse`. */
export function geminiJsonArray(turn: FakeTurn, options: GeminiReplyOptions = {}): Reply {
  return { kind: 'json', status: 200, body: generateContentChunks(turn, options) };
}

/** Google's error body; a Retry-After becomes google.rpc.RetryInfo, where Gemini says it. */
export function geminiError(status: number, message: string, headers?: Record<string, string>): Reply {
  const retryAfter = headers?.['retry-after'];
  const details = retryAfter
    ? [
        { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }] },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` },
      ]
    : [];
  return { kind: 'json', status, body: { error: { code: status, message, status: statusNames[status] ?? 'UNKNOWN', ...(details.length > 0 ? { details } : {}) } } };
}

/** An error record inside a 200 stream, as Gemini sends when a stream fails after it started. */
export function geminiStreamError(status: number, message: string): Reply {
  return { kind: 'sse', records: [data({ error: { code: status, message, status: statusNames[status] ?? 'UNKNOWN' } })] };
}
