import type { Reply } from './fake-http-server';

interface FakeToolCall {
  readonly id?: string;
  readonly name: string;
  readonly arguments: unknown;
}

export interface FakeTurn {
  readonly text?: string;
  readonly toolCalls?: readonly FakeToolCall[];
  /** `null`: the server reports no usage at all. */
  readonly usage?: { readonly input: number; readonly output: number } | null;
  /** Stop after the first text chunk and keep the connection open. */
  readonly hang?: boolean;
  /** End the stream cleanly, but before its terminal event (a connection a proxy cut mid-answer). */
  readonly truncate?: boolean;
}

const data = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;
const argumentText = (args: unknown): string => (typeof args === 'string' ? args : JSON.stringify(args));

/** A streamed Chat Completions reply: text in two deltas, tool calls with arguments split across chunks, usage last. */
export function chatStream(turn: FakeTurn, model = 'gpt-4o'): Reply {
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1, model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string => data({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const records = [chunk({ role: 'assistant', content: '' })];
  if (turn.text) {
    const half = Math.ceil(turn.text.length / 2);
    records.push(chunk({ content: turn.text.slice(0, half) }));
    if (turn.hang) return { kind: 'sse', records, hang: true };
    records.push(chunk({ content: turn.text.slice(half) }));
  }
  (turn.toolCalls ?? []).forEach((call, index) => {
    const args = argumentText(call.arguments);
    const cut = Math.floor(args.length / 2);
    records.push(chunk({ tool_calls: [{ index, id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: args.slice(0, cut) } }] }));
    records.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(cut) } }] }));
  });
  if (turn.truncate) return { kind: 'sse', records };
  records.push(chunk({}, turn.toolCalls?.length ? 'tool_calls' : 'stop'));
  const usage = usageOf(turn);
  if (usage) records.push(data({ ...base, choices: [], usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } }));
  records.push('data: [DONE]\n\n');
  return { kind: 'sse', records };
}

/** A streamed Responses API reply, with the SSE `event:` names the real API sends. */
export function responsesStream(turn: FakeTurn, model = 'gpt-4o'): Reply {
  let sequence = 0;
  const event = (payload: Record<string, unknown>): string => `event: ${String(payload.type)}\ndata: ${JSON.stringify({ ...payload, sequence_number: sequence++ })}\n\n`;
  const output: Record<string, unknown>[] = [];
  const records: string[] = [];
  const response = (status: string, items: unknown[]): Record<string, unknown> => ({ id: 'resp_fake', object: 'response', created_at: 1, model, status, output: items });
  records.push(event({ type: 'response.created', response: response('in_progress', []) }));
  if (turn.text) {
    const item = { id: 'msg_fake', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] };
    records.push(event({ type: 'response.output_item.added', output_index: output.length, item: { ...item, content: [], status: 'in_progress' } }));
    records.push(event({ type: 'response.output_text.delta', item_id: 'msg_fake', output_index: output.length, content_index: 0, delta: turn.text, logprobs: [] }));
    if (turn.hang) return { kind: 'sse', records, hang: true };
    records.push(event({ type: 'response.output_item.done', output_index: output.length, item }));
    output.push(item);
  }
  (turn.toolCalls ?? []).forEach((call, index) => {
    const item = { id: `fc_${index}`, type: 'function_call', call_id: call.id ?? `call_${index}`, name: call.name, arguments: argumentText(call.arguments), status: 'completed' };
    records.push(event({ type: 'response.output_item.added', output_index: output.length, item: { ...item, arguments: '', status: 'in_progress' } }));
    records.push(event({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: output.length, delta: item.arguments }));
    records.push(event({ type: 'response.output_item.done', output_index: output.length, item }));
    output.push(item);
  });
  if (turn.truncate) return { kind: 'sse', records };
  records.push(event({ type: 'response.completed', response: responseObject(turn, model) }));
  return { kind: 'sse', records };
}

const usageOf = (turn: FakeTurn): { input: number; output: number } | undefined => (turn.usage === null ? undefined : (turn.usage ?? { input: 100, output: 20 }));

/** The finished Responses object: the body of response.completed, or of a non-streamed reply. */
function responseObject(turn: FakeTurn, model: string): Record<string, unknown> {
  const output: Record<string, unknown>[] = [];
  if (turn.text) output.push({ id: 'msg_fake', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] });
  (turn.toolCalls ?? []).forEach((call, index) => {
    output.push({ id: `fc_${index}`, type: 'function_call', call_id: call.id ?? `call_${index}`, name: call.name, arguments: argumentText(call.arguments), status: 'completed' });
  });
  const usage = usageOf(turn);
  return {
    id: 'resp_fake',
    object: 'response',
    created_at: 1,
    model,
    status: 'completed',
    output,
    ...(usage ? { usage: { input_tokens: usage.input, output_tokens: usage.output, total_tokens: usage.input + usage.output, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } } : {}),
  };
}

/** A Responses reply sent as one JSON body although the request asked for a stream. */
export function responsesBody(turn: FakeTurn, model = 'gpt-4o'): Reply {
  return { kind: 'json', status: 200, body: responseObject(turn, model) };
}

/** A Chat Completions reply sent as one JSON body although the request asked for a stream. */
export function chatBody(turn: FakeTurn, model = 'gpt-4o'): Reply {
  const calls = (turn.toolCalls ?? []).map((call, index) => ({ id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: argumentText(call.arguments) } }));
  const usage = usageOf(turn);
  return {
    kind: 'json',
    status: 200,
    body: {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: 1,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: turn.text ?? null, ...(calls.length ? { tool_calls: calls } : {}) }, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
      ...(usage ? { usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } } : {}),
    },
  };
}

export function openAiError(status: number, message: string, headers?: Record<string, string>): Reply {
  const type = status === 401 ? 'invalid_request_error' : status === 429 ? 'rate_limit_exceeded' : 'server_error';
  return { kind: 'json', status, body: { error: { message, type, param: null, code: null } }, headers };
}
