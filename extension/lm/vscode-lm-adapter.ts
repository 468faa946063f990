// The engine's provider adapter over VS Code's Language Model API: the agent loop, its tools,
// retries and verdict ladder run unchanged on whatever chat model the editor offers.
import * as vscode from 'vscode';
import { cancelledFrom } from '../../engine/llm/provider-errors';
import type { LlmRequest, Message, ProviderAdapter, StreamEvent, TextPart, ToolCallPart } from '../../engine/llm/types';
import { ProviderError } from '../../engine/runtime/backend';
import { vscodeLmSource } from './model-mapping';

/** Shown by VS Code when it asks the user to let Attractor use the model. */
const accessJustification = 'Attractor runs the LLM nodes of your pipeline on this model: it reads and writes files in the workspace and runs commands through the pipeline\'s tools.';

export class VscodeLmAdapter implements ProviderAdapter {
  readonly provider = vscodeLmSource;
  readonly api = 'vscode.lm';

  constructor(private readonly model: vscode.LanguageModelChat) {}

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
    if (signal.aborted) throw cancelledFrom(signal);
    const cancellation = new vscode.CancellationTokenSource();
    const onAbort = (): void => cancellation.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    const content: (TextPart | ToolCallPart)[] = [];
    // A provider may ignore its token: the run stops waiting on it either way.
    const aborted = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(cancelledFrom(signal)), { once: true }));
    aborted.catch(() => undefined);
    try {
      const response = await Promise.race([this.model.sendRequest(chatMessages(request), requestOptions(request), cancellation.token), aborted]);
      const parts = response.stream[Symbol.asyncIterator]();
      for (let step = await Promise.race([parts.next(), aborted]); !step.done; step = await Promise.race([parts.next(), aborted])) {
        const part: unknown = step.value;
        if (part instanceof vscode.LanguageModelTextPart) {
          const last = content.at(-1);
          if (last?.kind === 'text') content[content.length - 1] = { kind: 'text', text: last.text + part.value };
          else content.push({ kind: 'text', text: part.value });
          yield { type: 'text_delta', delta: part.value };
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          content.push({ kind: 'tool_call', id: part.callId, name: part.name, rawArguments: JSON.stringify(part.input) });
          yield { type: 'tool_call_start', id: part.callId, name: part.name };
        }
      }
    } catch (error) {
      if (signal.aborted) throw cancelledFrom(signal);
      throw this.providerError(error);
    } finally {
      signal.removeEventListener('abort', onAbort);
      cancellation.dispose();
    }
    if (signal.aborted) throw cancelledFrom(signal);
    const calls = content.some((part) => part.kind === 'tool_call');
    yield {
      type: 'finish',
      response: {
        id: '',
        model: this.model.id,
        provider: this.provider,
        message: { role: 'assistant', content },
        finishReason: calls ? 'tool_calls' : 'stop',
        // The API reports no token counts: no usage, so the run records tokens and cost as unknown.
        costUsd: 'unknown',
      },
    };
  }

  /** Permission, quota and missing-model errors stay as they are: another attempt cannot help. */
  private providerError(error: unknown): ProviderError {
    const message = error instanceof Error ? error.message : String(error);
    const code = error instanceof vscode.LanguageModelError ? ` ${error.code}` : '';
    return new ProviderError(`${vscodeLmSource}${code} (${this.model.name}): ${message}`, vscodeLmSource, undefined, false);
  }
}

function requestOptions(request: LlmRequest): vscode.LanguageModelChatRequestOptions {
  const named = request.toolChoice?.mode === 'named' ? request.toolChoice.name : undefined;
  const tools = request.tools.filter((tool) => named === undefined || tool.name === named);
  return {
    justification: accessJustification,
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters })),
          toolMode: named ? vscode.LanguageModelChatToolMode.Required : vscode.LanguageModelChatToolMode.Auto,
        }
      : {}),
  };
}

/** The API has no system role: the system text (and any response schema) is the first user message. */
function chatMessages(request: LlmRequest): vscode.LanguageModelChatMessage[] {
  const schema = request.responseSchema ? `\n\nYour final answer must be only a JSON object matching this JSON Schema:\n${JSON.stringify(request.responseSchema)}` : '';
  const system = (request.system ?? '') + schema;
  return [...(system ? [vscode.LanguageModelChatMessage.User(system)] : []), ...request.messages.map(chatMessage)];
}

function chatMessage(message: Message): vscode.LanguageModelChatMessage {
  if (message.role === 'assistant') {
    return vscode.LanguageModelChatMessage.Assistant(
      message.content.map((part) => (part.kind === 'text' ? new vscode.LanguageModelTextPart(part.text) : new vscode.LanguageModelToolCallPart(part.id, part.name, argumentsObject(part.rawArguments)))),
    );
  }
  // Tool results lead the user message, as the API expects them right after the calls.
  const results = message.content.flatMap((part) => (part.kind === 'tool_result' ? [new vscode.LanguageModelToolResultPart(part.toolCallId, [new vscode.LanguageModelTextPart(part.isError ? `ERROR: ${part.content}` : part.content)])] : []));
  const texts = message.content.flatMap((part) => (part.kind === 'text' ? [new vscode.LanguageModelTextPart(part.text)] : []));
  return vscode.LanguageModelChatMessage.User([...results, ...texts]);
}

/** A call whose arguments were malformed was already answered with an error; the history keeps an object. */
function argumentsObject(raw: string): object {
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
