import { createAdapter } from '../../engine/llm/adapter-factory';
import { systemClock } from '../../engine/runtime/clock';
import type { LlmSettings } from '../../engine/llm/provider-settings';
import { defaultRetryPolicy, withRetries } from '../../engine/runtime/retry-policy';
import type { ProviderName } from '../../engine/llm/types';

/** One turn of the conversation we send; the system text travels separately. */
export interface ChatTurn {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

/** What the chat handlers need from a model: streamed text for a system prompt and turns. */
export interface ChatModel {
  readonly name: string;
  complete(system: string, turns: readonly ChatTurn[], signal: AbortSignal): AsyncIterable<string>;
}

/** The slice of `vscode.LanguageModelChat` we use (so tests can pass a scripted fake). */
export interface VscodeLanguageModel {
  readonly name: string;
  sendRequest(messages: unknown[], options: object, token: unknown): PromiseLike<{ readonly text: AsyncIterable<string> }>;
}

/** `vscode.LanguageModelChatMessage`'s factories: messages are runtime objects of the host. */
export interface VscodeMessageFactory {
  User(text: string): unknown;
  Assistant(text: string): unknown;
}

/**
 * The chat's selected model. The VS Code API has no system role, so the system prompt is the
 * first user message (the documented convention for participants).
 */
export function vscodeChatModel(model: VscodeLanguageModel, messages: VscodeMessageFactory, token: unknown): ChatModel {
  return {
    name: model.name,
    async *complete(system, turns) {
      const sent = [messages.User(system), ...turns.map((turn) => (turn.role === 'user' ? messages.User(turn.text) : messages.Assistant(turn.text)))];
      const response = await model.sendRequest(sent, {}, token);
      yield* response.text;
    },
  };
}

export interface ProviderModelConfig {
  readonly provider: ProviderName;
  readonly model: string;
  readonly settings: LlmSettings;
}

/** Our own configured provider through the engine's provider-neutral client. */
export function providerChatModel(config: ProviderModelConfig): ChatModel {
  return {
    name: `${config.provider}:${config.model}`,
    async *complete(system, turns, signal) {
      const adapter = await createAdapter(config.provider, config.settings);
      const messages = turns.map((turn) => ({ role: turn.role, content: [{ kind: 'text' as const, text: turn.text }] }));
      const request = { model: config.model, system, messages, tools: [], maxTokens: 4096 };
      // Transient failures (a dropped connection, 429, 5xx) are tried again as for LLM nodes, while
      // nothing has been shown: the request goes out with the stream's first event.
      const opened = await withRetries(
        async () => {
          const events = adapter.stream(request, signal)[Symbol.asyncIterator]();
          return { events, first: await events.next() };
        },
        { policy: defaultRetryPolicy, clock: systemClock, signal },
      );
      for (let next = opened.first; !next.done; next = await opened.events.next()) {
        if (next.value.type === 'text_delta') yield next.value.delta;
      }
    },
  };
}

export const configureModelHelp = [
  'No language model is available to @attractor.',
  '',
  '- Pick a model in the chat view\'s model picker (any installed chat model provider, e.g. GitHub Copilot), or',
  '- configure Attractor\'s own provider: set `attractor.chat.provider` (`openai`, `anthropic` or `gemini`) and `attractor.chat.model`,',
  '  and put the key in `OPENAI_API_KEY` / `ANTHROPIC_API_KEY` / `GEMINI_API_KEY` in the environment VS Code starts from.',
].join('\n');

export async function collect(stream: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk;
  return text;
}
