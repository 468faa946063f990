import type { Reply } from './fake-http-server';
import type { FakeTurn } from './openai-wire';

const event = (payload: Record<string, unknown>): string => `event: ${String(payload.type)}\ndata: ${JSON.stringify(payload)}\n\n`;

/** A streamed Messages reply: text block(s), tool_use blocks with input_json_delta pieces, message_delta with usage. */
export function messageStream(turn: FakeTurn, model = 'claude-haiku-4-5'): Reply {
  const usage = turn.usage === null ? undefined : (turn.usage ?? { input: 100, output: 20 });
  const records = [
    event({
      type: 'message_start',
      message: { id: 'msg_fake', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, ...(usage ? { usage: { input_tokens: usage.input, output_tokens: 1 } } : {}) },
    }),
  ];
  let index = 0;
  if (turn.text) {
    const half = Math.ceil(turn.text.length / 2);
    records.push(event({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    records.push(event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: turn.text.slice(0, half) } }));
    if (turn.hang) return { kind: 'sse', records, hang: true };
    records.push(event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: turn.text.slice(half) } }));
    records.push(event({ type: 'content_block_stop', index }));
    index++;
  }
  for (const call of turn.toolCalls ?? []) {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    const cut = Math.floor(args.length / 2);
    records.push(event({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id ?? `toolu_${index}`, name: call.name, input: {} } }));
    records.push(event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: args.slice(0, cut) } }));
    records.push(event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: args.slice(cut) } }));
    records.push(event({ type: 'content_block_stop', index }));
    index++;
  }
  records.push(event({ type: 'message_delta', delta: { stop_reason: turn.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null }, ...(usage ? { usage: { output_tokens: usage.output } } : {}) }));
  if (!turn.truncate) records.push(event({ type: 'message_stop' }));
  return { kind: 'sse', records };
}

/** A Messages reply sent as one JSON body although the request asked for a stream. */
export function messageBody(turn: FakeTurn, model = 'claude-haiku-4-5'): Reply {
  const usage = turn.usage === null ? undefined : (turn.usage ?? { input: 100, output: 20 });
  const content = [
    ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
    ...(turn.toolCalls ?? []).map((call, index) => ({ type: 'tool_use', id: call.id ?? `toolu_${index}`, name: call.name, input: typeof call.arguments === 'string' ? (JSON.parse(call.arguments) as unknown) : call.arguments })),
  ];
  return {
    kind: 'json',
    status: 200,
    body: {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: turn.toolCalls?.length ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      ...(usage ? { usage: { input_tokens: usage.input, output_tokens: usage.output } } : {}),
    },
  };
}

export function anthropicError(status: number, type: string, message: string, headers?: Record<string, string>): Reply {
  return { kind: 'json', status, body: { type: 'error', error: { type, message } }, headers };
}
