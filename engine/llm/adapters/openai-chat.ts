import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { acceptsReasoningEffort, costUsd } from '../model-catalog';
import { cancelledFrom, incompleteStreamError } from '../provider-errors';
import { isStrictCompatible } from '../structured-output';
import type { FinishReason, LlmRequest, LlmResponse, Message, ProviderAdapter, StreamEvent, TextPart, TokenUsage, ToolCallPart } from '../types';
import { nonStreamBody } from './non-stream-body';
import type { SdkClientOptions } from './sdk-client-options';
import { translateOpenAiError } from './openai-errors';

/** OpenAI Chat Completions: the API that OpenAI-compatible local servers (llama.cpp, vLLM, Ollama) speak. */
export class OpenAiChatAdapter implements ProviderAdapter {
  readonly provider = 'openai' as const;
  readonly api = 'chat';

  constructor(private readonly client: OpenAI) {}

  static create(options: SdkClientOptions): OpenAiChatAdapter {
    return new OpenAiChatAdapter(new OpenAI(options));
  }

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
    const text: string[] = [];
    const calls = new Map<number, { id: string; name: string; args: string }>();
    let id = '';
    let model = request.model;
    let finishReason: FinishReason | undefined;
    let usage: TokenUsage | undefined;
    try {
      const { data: stream, response } = await this.client.chat.completions.create(chatParams(request), { signal }).withResponse();
      const body = await nonStreamBody(response);
      if (body !== undefined) {
        yield { type: 'finish', response: completionResponse(body as ChatCompletion, request.model) };
        return;
      }
      for await (const chunk of stream) {
        id ||= chunk.id;
        model = chunk.model || model;
        if (chunk.usage) usage = usageFrom(chunk.usage);
        const choice = chunk.choices[0];
        if (!choice) continue;
        if (choice.delta.content) {
          text.push(choice.delta.content);
          yield { type: 'text_delta', delta: choice.delta.content };
        }
        for (const delta of choice.delta.tool_calls ?? []) {
          let call = calls.get(delta.index);
          if (!call) {
            call = { id: delta.id ?? `call_${delta.index}`, name: delta.function?.name ?? '', args: '' };
            calls.set(delta.index, call);
            yield { type: 'tool_call_start', id: call.id, name: call.name };
          }
          call.args += delta.function?.arguments ?? '';
        }
        if (choice.finish_reason) finishReason = finishReasonFrom(choice.finish_reason);
      }
    } catch (error) {
      throw translateOpenAiError(error, signal);
    }
    // The SDKs end a stream quietly when its request is aborted; a partial answer is not an answer.
    if (signal.aborted) throw cancelledFrom(signal);
    if (!finishReason) throw incompleteStreamError('openai', 'a finish_reason');
    const content: (TextPart | ToolCallPart)[] = [];
    if (text.length > 0) content.push({ kind: 'text', text: text.join('') });
    for (const call of [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c)) {
      content.push({ kind: 'tool_call', id: call.id, name: call.name, rawArguments: call.args });
    }
    yield {
      type: 'finish',
      response: { id, model, provider: 'openai', message: { role: 'assistant', content }, finishReason, ...(usage ? { usage } : {}), costUsd: costUsd(model, usage) },
    };
  }
}

function usageFrom(usage: CompletionUsage): TokenUsage {
  return {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens,
    cacheReadTokens: usage.prompt_tokens_details?.cached_tokens,
  };
}

/** A non-streamed completion (a server that ignored `stream: true`). */
function completionResponse(completion: ChatCompletion, requestedModel: string): LlmResponse {
  const choice = completion.choices[0];
  const content: (TextPart | ToolCallPart)[] = [];
  if (choice?.message.content) content.push({ kind: 'text', text: choice.message.content });
  for (const call of choice?.message.tool_calls ?? []) {
    if (call.type === 'function') content.push({ kind: 'tool_call', id: call.id, name: call.function.name, rawArguments: call.function.arguments });
  }
  const model = completion.model || requestedModel;
  const usage = completion.usage ? usageFrom(completion.usage) : undefined;
  const finishReason = choice?.finish_reason ? finishReasonFrom(choice.finish_reason) : content.some((part) => part.kind === 'tool_call') ? 'tool_calls' : 'stop';
  return { id: completion.id, model, provider: 'openai', message: { role: 'assistant', content }, finishReason, ...(usage ? { usage } : {}), costUsd: costUsd(model, usage) };
}

function finishReasonFrom(reason: string): FinishReason {
  if (reason === 'stop' || reason === 'length' || reason === 'content_filter') return reason;
  return reason === 'tool_calls' || reason === 'function_call' ? 'tool_calls' : 'other';
}

function chatParams(request: LlmRequest): ChatCompletionCreateParamsStreaming {
  const params: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: [...(request.system ? [{ role: 'system' as const, content: request.system }] : []), ...request.messages.flatMap(chatMessages)],
    stream: true,
    stream_options: { include_usage: true },
  };
  // The API rejects `tools: []`.
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } } }));
    if (request.toolChoice?.mode === 'named') params.tool_choice = { type: 'function', function: { name: request.toolChoice.name } };
  }
  if (request.responseSchema) {
    params.response_format = { type: 'json_schema', json_schema: { name: 'response', schema: { ...request.responseSchema }, strict: isStrictCompatible(request.responseSchema) } };
  }
  if (request.reasoningEffort && acceptsReasoningEffort('openai', request.model)) params.reasoning_effort = request.reasoningEffort;
  if (request.maxTokens !== undefined) params.max_completion_tokens = request.maxTokens;
  return params;
}

function chatMessages(message: Message): ChatCompletionMessageParam[] {
  if (message.role === 'assistant') {
    const text = message.content.flatMap((part) => (part.kind === 'text' ? [part.text] : [])).join('');
    const calls = message.content.filter((part): part is ToolCallPart => part.kind === 'tool_call');
    return [
      {
        role: 'assistant',
        // `content: null` is valid only beside tool_calls; an empty turn (a bare verdict call) sends ''.
        content: text || (calls.length > 0 ? null : ''),
        ...(calls.length > 0 ? { tool_calls: calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.rawArguments } })) } : {}),
      },
    ];
  }
  const out: ChatCompletionMessageParam[] = [];
  for (const part of message.content) if (part.kind === 'tool_result') out.push({ role: 'tool', tool_call_id: part.toolCallId, content: part.content });
  const text = message.content.flatMap((part) => (part.kind === 'text' ? [part.text] : [])).join('\n\n');
  if (text) out.push({ role: 'user', content: text });
  return out;
}
