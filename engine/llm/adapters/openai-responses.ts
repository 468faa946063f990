import OpenAI from 'openai';
import type { Response as OpenAiResponse, ResponseCreateParamsStreaming, ResponseInputItem } from 'openai/resources/responses/responses';
import { acceptsReasoningEffort, costUsd } from '../model-catalog';
import { cancelledFrom, incompleteStreamError, providerErrorFrom } from '../provider-errors';
import { isStrictCompatible } from '../structured-output';
import type { FinishReason, LlmRequest, LlmResponse, Message, ProviderAdapter, StreamEvent, TextPart, ToolCallPart } from '../types';
import type { SdkClientOptions } from './sdk-client-options';
import { translateOpenAiError } from './openai-errors';
import { nonStreamBody } from './non-stream-body';

/** OpenAI Responses API (stateless: the whole conversation is sent each turn, nothing stored). */
export class OpenAiResponsesAdapter implements ProviderAdapter {
  readonly provider = 'openai' as const;
  readonly api = 'responses';

  constructor(private readonly client: OpenAI) {}

  static create(options: SdkClientOptions): OpenAiResponsesAdapter {
    return new OpenAiResponsesAdapter(new OpenAI(options));
  }

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
    let final: OpenAiResponse | undefined;
    try {
      const { data: stream, response } = await this.client.responses.create(responsesParams(request), { signal }).withResponse();
      const body = await nonStreamBody(response);
      if (body !== undefined) {
        yield { type: 'finish', response: responseFrom(body as OpenAiResponse, request.model) };
        return;
      }
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') yield { type: 'text_delta', delta: event.delta };
        else if (event.type === 'response.output_item.added' && event.item.type === 'function_call') yield { type: 'tool_call_start', id: event.item.call_id, name: event.item.name };
        else if (event.type === 'response.completed' || event.type === 'response.incomplete') final = event.response;
        else if (event.type === 'response.failed') throw streamFailure(event.response.error?.message ?? 'response failed', event.response.error?.code);
        else if (event.type === 'error') throw streamFailure(event.message, event.code);
      }
    } catch (error) {
      throw translateOpenAiError(error, signal);
    }
    // The SDKs end a stream quietly when its request is aborted; a partial answer is not an answer.
    if (signal.aborted) throw cancelledFrom(signal);
    if (!final) throw incompleteStreamError('openai', 'response.completed');
    yield { type: 'finish', response: responseFrom(final, request.model) };
  }
}

/** An error reported inside a 200 stream: transient when the server says it was its own fault. */
function streamFailure(message: string, code: string | null | undefined): Error {
  const transient = /server_error|overloaded|rate_limit/i.test(code ?? '');
  return providerErrorFrom('openai', { status: undefined, headers: undefined, message, transportFailure: transient }, Date.now());
}

function responseFrom(response: OpenAiResponse, requestedModel: string): LlmResponse {
  const content: (TextPart | ToolCallPart)[] = [];
  for (const item of response.output) {
    if (item.type === 'message') {
      const text = item.content.flatMap((part) => (part.type === 'output_text' ? [part.text] : [])).join('');
      if (text) content.push({ kind: 'text', text });
    } else if (item.type === 'function_call') {
      content.push({ kind: 'tool_call', id: item.call_id, name: item.name, rawArguments: item.arguments });
    }
  }
  const usage = response.usage && {
    inputTokens: response.usage.input_tokens,
    outputTokens: response.usage.output_tokens,
    reasoningTokens: response.usage.output_tokens_details?.reasoning_tokens,
    cacheReadTokens: response.usage.input_tokens_details?.cached_tokens,
  };
  const hasCalls = content.some((part) => part.kind === 'tool_call');
  const finishReason: FinishReason = response.status === 'incomplete' ? 'length' : hasCalls ? 'tool_calls' : 'stop';
  const model = response.model || requestedModel;
  return { id: response.id, model, provider: 'openai', message: { role: 'assistant', content }, finishReason, ...(usage ? { usage } : {}), costUsd: costUsd(model, usage) };
}

function responsesParams(request: LlmRequest): ResponseCreateParamsStreaming {
  const params: ResponseCreateParamsStreaming = { model: request.model, input: request.messages.flatMap(inputItems), stream: true, store: false };
  if (request.system) params.instructions = request.system;
  if (request.tools.length > 0) {
    // Responses tools are flat: {type, name, parameters}, not nested under `function`.
    params.tools = request.tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description, parameters: { ...tool.parameters }, strict: false }));
    if (request.toolChoice?.mode === 'named') params.tool_choice = { type: 'function', name: request.toolChoice.name };
  }
  if (request.responseSchema) {
    params.text = { format: { type: 'json_schema', name: 'response', schema: { ...request.responseSchema }, strict: isStrictCompatible(request.responseSchema) } };
  }
  if (request.reasoningEffort && acceptsReasoningEffort('openai', request.model)) params.reasoning = { effort: request.reasoningEffort };
  if (request.maxTokens !== undefined) params.max_output_tokens = request.maxTokens;
  return params;
}

/** Built from our own parts, so SDK-added fields (`parsed_arguments`, item ids) never travel back. */
function inputItems(message: Message): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const part of message.content) {
    if (part.kind === 'text') items.push({ role: message.role, content: part.text });
    else if (part.kind === 'tool_call') items.push({ type: 'function_call', call_id: part.id, name: part.name, arguments: part.rawArguments });
    else items.push({ type: 'function_call_output', call_id: part.toolCallId, output: part.content });
  }
  return items;
}
