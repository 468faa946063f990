import { randomUUID } from 'node:crypto';
import type { Content, GenerateContentConfig, GenerateContentParameters, GenerateContentResponseUsageMetadata, Part } from '@google/genai';
import { FunctionCallingConfigMode, GoogleGenAI, ThinkingLevel } from '@google/genai';
import { isRecord } from '../../model/json';
import { acceptsReasoningEffort, costUsd } from '../model-catalog';
import { cancelledFrom, incompleteStreamError } from '../provider-errors';
import { structuredOutputToolName } from '../structured-output';
import type { FinishReason, LlmRequest, Message, ProviderAdapter, ReasoningEffort, StreamEvent, TextPart, TokenUsage, ToolCallPart } from '../types';
import { geminiStreamFailure, translateGeminiError } from './gemini-errors';
import { fetchReadingPlainJson } from './gemini-stream-body';
import type { SdkClientOptions } from './sdk-client-options';

/**
 * Google's documented stand-in for a thought signature on a function call Gemini did not make
 * (a call replayed from another provider's node): Gemini 3 refuses an unsigned call otherwise.
 */
const foreignCallSignature = 'skip_thought_signature_validator';

/** Gemini 2.5 thinks within a token budget; Gemini 3 by level. */
const thinkingBudgets: Readonly<Record<ReasoningEffort, number>> = { low: 1024, medium: 8192, high: 24576 };
const thinkingLevels: Readonly<Record<ReasoningEffort, ThinkingLevel>> = { low: ThinkingLevel.LOW, medium: ThinkingLevel.MEDIUM, high: ThinkingLevel.HIGH };

const blockedFinishReasons = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE']);

/**
 * Gemini generateContent through Google's SDK (streamGenerateContent, `alt=sse`). Structured output
 * uses tool extraction, as on Anthropic: Gemini before 3 refuses a response schema beside tools.
 * A stream is complete only once a chunk carries a final finishReason; an incomplete stream reaches
 * the retry policy as the shared transient `incompleteStreamError`. The SDK retries nothing; it
 * only follows a long decode the server splits into hops (continuationToken), which resumes the
 * reply rather than repeating it.
 */
export class GeminiGenerateContentAdapter implements ProviderAdapter {
  readonly provider = 'gemini' as const;
  readonly api = 'generateContent';

  constructor(private readonly client: GoogleGenAI) {}

  static create(options: SdkClientOptions): GeminiGenerateContentAdapter {
    return new GeminiGenerateContentAdapter(
      new GoogleGenAI({
        apiKey: options.apiKey,
        vertexai: false,
        httpOptions: { ...(options.baseURL ? { baseUrl: options.baseURL } : {}), timeout: options.timeout, fetch: fetchReadingPlainJson },
      }),
    );
  }

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
    const text: string[] = [];
    const calls: ToolCallPart[] = [];
    let structured: string | undefined;
    let id = '';
    let model = request.model;
    let finish: string | undefined;
    let usage: GenerateContentResponseUsageMetadata | undefined;
    try {
      const stream = await this.client.models.generateContentStream(generateContentParams(request, signal));
      for await (const chunk of stream) {
        id ||= chunk.responseId ?? '';
        model = chunk.modelVersion || model;
        usage = chunk.usageMetadata ?? usage;
        const blocked = chunk.promptFeedback?.blockReason;
        if (blocked) throw geminiStreamFailure(`the prompt was blocked (${blocked}${chunk.promptFeedback?.blockReasonMessage ? `: ${chunk.promptFeedback.blockReasonMessage}` : ''})`, false);
        const candidate = chunk.candidates?.[0];
        for (const part of candidate?.content?.parts ?? []) {
          if (part.thought) continue;
          if (part.functionCall) {
            const args = JSON.stringify(part.functionCall.args ?? {});
            if (part.functionCall.name === structuredOutputToolName) {
              structured = args;
              continue;
            }
            const call: ToolCallPart = {
              kind: 'tool_call',
              id: part.functionCall.id || madeUpCallId(),
              name: part.functionCall.name ?? '',
              rawArguments: args,
              ...(part.thoughtSignature ? { thoughtSignature: part.thoughtSignature } : {}),
            };
            calls.push(call);
            yield { type: 'tool_call_start', id: call.id, name: call.name };
          } else if (part.text) {
            text.push(part.text);
            yield { type: 'text_delta', delta: part.text };
          }
        }
        finish = candidate?.finishReason ?? finish;
      }
    } catch (error) {
      throw translateGeminiError(error, signal);
    }
    // The SDKs end a stream quietly when its request is aborted; a partial answer is not an answer.
    if (signal.aborted) throw cancelledFrom(signal);
    // CONTINUATION ends a hop of a long decode: the SDK gave up resuming it, so the reply is partial.
    if (!finish || finish === 'CONTINUATION') throw incompleteStreamError('gemini', 'a final finishReason');
    const content: (TextPart | ToolCallPart)[] = [];
    // A schema answer is the response: its JSON replaces any prose around it.
    if (structured !== undefined) content.push({ kind: 'text', text: structured });
    else if (text.length > 0) content.push({ kind: 'text', text: text.join('') });
    content.push(...calls);
    const tokens = usage && tokenUsage(usage);
    yield {
      type: 'finish',
      response: {
        id,
        model,
        provider: 'gemini',
        message: { role: 'assistant', content },
        finishReason: finishReasonFrom(finish, calls.length > 0),
        ...(tokens ? { usage: tokens } : {}),
        costUsd: costUsd(model, tokens),
      },
    };
  }
}

/**
 * Gemini often sends calls without an id. The one made up here must also pass where a full-fidelity
 * thread replays it to another provider: OpenAI takes at most 40 characters, Anthropic [A-Za-z0-9_-].
 */
function madeUpCallId(): string {
  return `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

/**
 * Gemini bills thinking as output and counts cached tokens inside the prompt; tool-use prompt
 * tokens (server-side tools) bill as input.
 */
function tokenUsage(usage: GenerateContentResponseUsageMetadata): TokenUsage {
  const thoughts = usage.thoughtsTokenCount ?? 0;
  const cached = usage.cachedContentTokenCount ?? 0;
  return {
    inputTokens: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0),
    outputTokens: (usage.candidatesTokenCount ?? 0) + thoughts,
    ...(thoughts ? { reasoningTokens: thoughts } : {}),
    ...(cached ? { cacheReadTokens: cached } : {}),
  };
}

function finishReasonFrom(reason: string, hasCalls: boolean): FinishReason {
  if (hasCalls) return 'tool_calls';
  if (reason === 'STOP') return 'stop';
  if (reason === 'MAX_TOKENS') return 'length';
  return blockedFinishReasons.has(reason) ? 'content_filter' : 'other';
}

function generateContentParams(request: LlmRequest, signal: AbortSignal): GenerateContentParameters {
  const declarations = request.tools.map((tool) => ({ name: tool.name, description: tool.description, parametersJsonSchema: { type: 'object', ...tool.parameters } }));
  if (request.responseSchema) {
    declarations.push({
      name: structuredOutputToolName,
      description: 'Give your final answer by calling this tool; its arguments are the answer.',
      parametersJsonSchema: { type: 'object', ...request.responseSchema },
    });
  }
  const config: GenerateContentConfig = { abortSignal: signal, automaticFunctionCalling: { disable: true } };
  if (request.system) config.systemInstruction = { parts: [{ text: request.system }] };
  if (declarations.length > 0) config.tools = [{ functionDeclarations: declarations }];
  // With nothing else to call, the schema tool is forced: that is the final-answer call.
  const forced = request.responseSchema && request.tools.length === 0 ? structuredOutputToolName : request.toolChoice?.mode === 'named' ? request.toolChoice.name : undefined;
  if (forced) config.toolConfig = { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: [forced] } };
  if (request.reasoningEffort && acceptsReasoningEffort('gemini', request.model)) {
    config.thinkingConfig = /^gemini-2\./.test(request.model) ? { thinkingBudget: thinkingBudgets[request.reasoningEffort] } : { thinkingLevel: thinkingLevels[request.reasoningEffort] };
  }
  if (request.maxTokens !== undefined) config.maxOutputTokens = request.maxTokens;
  return { model: request.model, contents: request.messages.map((message, index, all) => geminiContent(message, all.slice(0, index))), config };
}

/**
 * A functionResponse names its function, which the neutral tool result does not carry: it is the
 * name of the call with the same id earlier in the conversation.
 */
function geminiContent(message: Message, earlier: readonly Message[]): Content {
  const parts: Part[] = [];
  let signed = false;
  for (const part of message.content) {
    if (part.kind === 'text') {
      if (part.text) parts.push({ text: part.text });
    } else if (part.kind === 'tool_call') {
      // Gemini signs the first call of a step; a call it did not make gets the documented stand-in there.
      const thoughtSignature = part.thoughtSignature ?? (signed ? undefined : foreignCallSignature);
      signed = true;
      parts.push({ functionCall: { id: part.id, name: part.name, args: callArguments(part.rawArguments) }, ...(thoughtSignature ? { thoughtSignature } : {}) });
    } else {
      const name = callName(part.toolCallId, earlier) ?? 'unknown_tool';
      parts.push({ functionResponse: { id: part.toolCallId, name, response: part.isError ? { error: part.content } : { output: part.content } } });
    }
  }
  // An empty content is refused; a model turn that said nothing is replayed as saying so.
  if (parts.length === 0) parts.push({ text: '(no content)' });
  return { role: message.role === 'assistant' ? 'model' : 'user', parts };
}

function callName(callId: string, earlier: readonly Message[]): string | undefined {
  for (const message of [...earlier].reverse()) {
    for (const part of message.content) if (part.kind === 'tool_call' && part.id === callId) return part.name;
  }
  return undefined;
}

/** Gemini takes arguments as an object; text that is not one is replayed under `arguments`. */
function callArguments(rawArguments: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(rawArguments || '{}');
    return isRecord(parsed) ? parsed : { arguments: rawArguments };
  } catch {
    return { arguments: rawArguments };
  }
}
