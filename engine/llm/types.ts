// Provider-neutral conversation, request and response shapes (after unified-llm-spec §3).

export type ProviderName = 'openai' | 'anthropic' | 'gemini';
export const providerNames: readonly ProviderName[] = ['openai', 'anthropic', 'gemini'];

export function isProviderName(value: string): value is ProviderName {
  return (providerNames as readonly string[]).includes(value);
}

export interface TextPart {
  readonly kind: 'text';
  readonly text: string;
}

export interface ToolCallPart {
  readonly kind: 'tool_call';
  readonly id: string;
  readonly name: string;
  /** The arguments exactly as the model sent them (a JSON object text, possibly malformed). */
  readonly rawArguments: string;
  /** Gemini's opaque thought signature: the call must carry it back, or Gemini 3 refuses the next request. */
  readonly thoughtSignature?: string;
}

export interface ToolResultPart {
  readonly kind: 'tool_result';
  readonly toolCallId: string;
  readonly content: string;
  readonly isError: boolean;
}

export type ContentPart = TextPart | ToolCallPart | ToolResultPart;

/** System text is carried on the request, never as a message (Anthropic refuses a system role inside messages). */
export type Message =
  | { readonly role: 'user'; readonly content: readonly (TextPart | ToolResultPart)[] }
  | { readonly role: 'assistant'; readonly content: readonly (TextPart | ToolCallPart)[] };

export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: Readonly<Record<string, unknown>>;
}

export type ToolChoice = { readonly mode: 'auto' } | { readonly mode: 'named'; readonly name: string };

export type ReasoningEffort = 'low' | 'medium' | 'high';

export interface LlmRequest {
  readonly model: string;
  readonly system?: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  readonly toolChoice?: ToolChoice;
  /** Structured output: the final answer must be JSON matching this schema. */
  readonly responseSchema?: Readonly<Record<string, unknown>>;
  readonly reasoningEffort?: ReasoningEffort;
  readonly maxTokens?: number;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

export interface TokenUsage {
  /** Every prompt token, cached or not (Anthropic's uncached `input_tokens` plus its cache reads and writes). */
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
}

export interface LlmResponse {
  readonly id: string;
  readonly model: string;
  /** A ProviderName, or the name of an injected adapter's source (e.g. `vscode-lm`). */
  readonly provider: string;
  readonly message: Extract<Message, { role: 'assistant' }>;
  readonly finishReason: FinishReason;
  /** Absent when the server reported no usage (then `costUsd` is 'unknown' too). */
  readonly usage?: TokenUsage;
  /** USD for this call, or 'unknown' when the model is not in the price table (never a guess). */
  readonly costUsd: number | 'unknown';
}

export type StreamEvent =
  | { readonly type: 'text_delta'; readonly delta: string }
  | { readonly type: 'tool_call_start'; readonly id: string; readonly name: string }
  | { readonly type: 'finish'; readonly response: LlmResponse };

export function responseText(message: { readonly content: readonly ContentPart[] }): string {
  return message.content.flatMap((part) => (part.kind === 'text' ? [part.text] : [])).join('');
}

export function toolCalls(message: { readonly content: readonly ContentPart[] }): ToolCallPart[] {
  return message.content.filter((part): part is ToolCallPart => part.kind === 'tool_call');
}

/**
 * One provider API behind the neutral shapes. `stream` ends with exactly one `finish` event; a
 * stream that ends without the API's terminal event throws `incompleteStreamError` instead, and a
 * plain JSON body sent back to the streaming request is read as the whole response.
 */
export interface ProviderAdapter {
  /** A ProviderName, or the name of an injected adapter's source (e.g. `vscode-lm`). */
  readonly provider: string;
  readonly api: string;
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent>;
}
