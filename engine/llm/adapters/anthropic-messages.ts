import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, Message as AnthropicMessage, MessageCreateParamsStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { acceptsReasoningEffort, costUsd } from '../model-catalog';
import { cancelledFrom, incompleteStreamError, providerErrorFrom } from '../provider-errors';
import { structuredOutputToolName } from '../structured-output';
import type { SdkClientOptions } from './sdk-client-options';
import type { FinishReason, LlmRequest, LlmResponse, Message, ProviderAdapter, StreamEvent, TextPart, TokenUsage, ToolCallPart } from '../types';
import { nonStreamBody } from './non-stream-body';

const defaultMaxTokens = 8192;

/**
 * Anthropic Messages. Structured output uses tool extraction: the schema becomes a tool whose input
 * is the answer; a call to it comes back as the response's JSON text, never as a tool call.
 */
export class AnthropicMessagesAdapter implements ProviderAdapter {
  readonly provider = 'anthropic' as const;
  readonly api = 'messages';

  constructor(private readonly client: Anthropic) {}

  static create(options: SdkClientOptions): AnthropicMessagesAdapter {
    return new AnthropicMessagesAdapter(new Anthropic(options));
  }

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
    const blocks = new Map<number, Block>();
    let id = '';
    let model = request.model;
    let stopReason: string | null = null;
    let stopped = false;
    let usage: TokenUsage | undefined;
    try {
      const { data: stream, response } = await this.client.messages.create(messagesParams(request), { signal }).withResponse();
      const body = await nonStreamBody(response);
      if (body !== undefined) {
        const message = body as AnthropicMessage;
        const whole = message.content.flatMap((block): Block[] =>
          block.type === 'text' ? [{ kind: 'text', text: block.text }] : block.type === 'tool_use' ? [{ kind: 'tool_use', id: block.id, name: block.name, json: JSON.stringify(block.input) }] : [],
        );
        yield { type: 'finish', response: responseFrom(message.id, message.model || request.model, whole, message.stop_reason, reportedUsage(message.usage)) };
        return;
      }
      for await (const event of stream) {
        switch (event.type) {
          case 'message_start':
            id = event.message.id;
            model = event.message.model || model;
            usage = reportedUsage(event.message.usage);
            break;
          case 'content_block_start':
            if (event.content_block.type === 'text') blocks.set(event.index, { kind: 'text', text: event.content_block.text });
            else if (event.content_block.type === 'tool_use') {
              blocks.set(event.index, { kind: 'tool_use', id: event.content_block.id, name: event.content_block.name, json: '' });
              if (event.content_block.name !== structuredOutputToolName) yield { type: 'tool_call_start', id: event.content_block.id, name: event.content_block.name };
            }
            break;
          case 'content_block_delta': {
            const block = blocks.get(event.index);
            if (event.delta.type === 'text_delta' && block?.kind === 'text') {
              block.text += event.delta.text;
              yield { type: 'text_delta', delta: event.delta.text };
            } else if (event.delta.type === 'input_json_delta' && block?.kind === 'tool_use') block.json += event.delta.partial_json;
            break;
          }
          case 'message_delta':
            stopReason = event.delta.stop_reason;
            // The delta's counts are cumulative; it repeats the prompt counts only sometimes.
            if (typeof event.usage?.input_tokens === 'number') usage = reportedUsage({ ...event.usage, input_tokens: event.usage.input_tokens });
            else if (event.usage) usage = usage && { ...usage, outputTokens: event.usage.output_tokens };
            break;
          case 'message_stop':
            stopped = true;
            break;
          default:
            break;
        }
      }
    } catch (error) {
      throw translateAnthropicError(error, signal);
    }
    // The SDKs end a stream quietly when its request is aborted; a partial answer is not an answer.
    if (signal.aborted) throw cancelledFrom(signal);
    if (!stopped) throw incompleteStreamError('anthropic', 'message_stop');
    const ordered = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
    yield { type: 'finish', response: responseFrom(id, model, ordered, stopReason, usage) };
  }
}

type Block = { kind: 'text'; text: string } | { kind: 'tool_use'; id: string; name: string; json: string };

function responseFrom(id: string, model: string, ordered: readonly Block[], stopReason: string | null, usage: TokenUsage | undefined): LlmResponse {
  const structured = ordered.find((block) => block.kind === 'tool_use' && block.name === structuredOutputToolName);
  const content: (TextPart | ToolCallPart)[] = [];
  // A schema answer is the response: its JSON replaces any prose around it, as OpenAI's would.
  if (structured?.kind === 'tool_use') content.push({ kind: 'text', text: structured.json || '{}' });
  for (const block of ordered) {
    if (block.kind === 'text') {
      if (block.text && !structured) content.push({ kind: 'text', text: block.text });
    } else if (block !== structured) content.push({ kind: 'tool_call', id: block.id, name: block.name, rawArguments: block.json || '{}' });
  }
  const hasCalls = content.some((part) => part.kind === 'tool_call');
  return { id, model, provider: 'anthropic', message: { role: 'assistant', content }, finishReason: finishReasonFrom(stopReason, hasCalls), ...(usage ? { usage } : {}), costUsd: costUsd(model, usage) };
}

/**
 * Anthropic counts cached prompt tokens apart from `input_tokens`; the neutral count includes them.
 * A server (a proxy) that sends no usage object leaves the usage unknown.
 */
function reportedUsage(
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number | null; cache_creation_input_tokens?: number | null } | undefined,
): TokenUsage | undefined {
  if (!usage) return undefined;
  const read = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: usage.input_tokens + read + written,
    outputTokens: usage.output_tokens,
    ...(read ? { cacheReadTokens: read } : {}),
    ...(written ? { cacheWriteTokens: written } : {}),
  };
}

function finishReasonFrom(stopReason: string | null, hasCalls: boolean): FinishReason {
  if (hasCalls) return 'tool_calls';
  if (stopReason === 'max_tokens') return 'length';
  if (stopReason === 'refusal') return 'content_filter';
  return 'stop';
}

export function translateAnthropicError(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return cancelledFrom(signal);
  if (error instanceof Anthropic.APIConnectionError) {
    return providerErrorFrom('anthropic', { status: undefined, headers: undefined, message: error.message, transportFailure: true }, Date.now());
  }
  if (error instanceof Anthropic.APIError) {
    // `.message` is "401 " plus the whole JSON body; the provider's own sentence is nested.
    const body = error.error as { error?: { message?: unknown; type?: unknown } } | undefined;
    const message = typeof body?.error?.message === 'string' ? body.error.message : error.message;
    const overloaded = error.status === undefined && /overloaded_error|api_error|rate_limit_error/.test(String(body?.error?.type ?? ''));
    return providerErrorFrom('anthropic', { status: error.status, headers: error.headers, message, transportFailure: overloaded }, Date.now());
  }
  return error instanceof Error ? error : new Error(String(error));
}

function messagesParams(request: LlmRequest): MessageCreateParamsStreaming {
  const tools = request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: { type: 'object' as const, ...tool.parameters } }));
  if (request.responseSchema) {
    tools.push({
      name: structuredOutputToolName,
      description: 'Give your final answer by calling this tool; its input is the answer.',
      input_schema: { type: 'object' as const, ...request.responseSchema },
    });
  }
  const params: MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: request.maxTokens ?? defaultMaxTokens,
    messages: request.messages.map((message, index, all) => anthropicMessage(message, index === all.length - 1)),
    stream: true,
  };
  if (request.system) params.system = [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }];
  if (tools.length > 0) params.tools = tools;
  // With nothing else to call, the schema tool is forced: that is the final-answer call.
  if (request.responseSchema && request.tools.length === 0) params.tool_choice = { type: 'tool', name: structuredOutputToolName };
  else if (request.toolChoice?.mode === 'named') params.tool_choice = { type: 'tool', name: request.toolChoice.name };
  if (request.reasoningEffort && acceptsReasoningEffort('anthropic', request.model)) params.output_config = { effort: request.reasoningEffort };
  return params;
}

/**
 * `cacheBreakpoint` marks the conversation's end: an agent turn resends the whole conversation, and
 * the marker lets the next turn read that prefix from the prompt cache instead of paying for it
 * again (Anthropic caches only when asked; prefixes under the model's minimum are not cached).
 */
function anthropicMessage(message: Message, cacheBreakpoint: boolean): MessageParam {
  const content: ContentBlockParam[] = [];
  // Each tool_result must open the message that follows its tool_use; empty text blocks are refused.
  for (const part of message.content) {
    if (part.kind === 'tool_result') {
      content.push({ type: 'tool_result', tool_use_id: part.toolCallId, ...(part.content ? { content: part.content } : {}), is_error: part.isError });
    }
  }
  for (const part of message.content) {
    if (part.kind === 'text' && part.text) content.push({ type: 'text', text: part.text });
    else if (part.kind === 'tool_call') content.push({ type: 'tool_use', id: part.id, name: part.name, input: toolInput(part.rawArguments) });
  }
  if (content.length === 0) content.push({ type: 'text', text: '(no content)' });
  const last = content.at(-1);
  if (cacheBreakpoint && last && (last.type === 'text' || last.type === 'tool_result' || last.type === 'tool_use')) last.cache_control = { type: 'ephemeral' };
  return { role: message.role, content };
}

function toolInput(rawArguments: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(rawArguments || '{}');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
