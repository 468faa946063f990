import type { ChatModel, VscodeLanguageModel, VscodeMessageFactory } from './chat-model';
import type { PipelineRunner } from './run-tool';

/** The slice of `vscode.ChatRequest` the participant reads (`model` exists from VS Code 1.95). */
export interface ChatRequestLike {
  readonly prompt: string;
  readonly command: string | undefined;
  readonly model?: VscodeLanguageModel;
}

/** `vscode.ChatRequestTurn` / `vscode.ChatResponseTurn`, structurally. */
export type ChatHistoryTurn = { readonly prompt: string; readonly command?: string } | { readonly response: readonly unknown[] };

/** The slice of `vscode.ChatResponseStream` the participant writes to. */
export interface ResponseStreamLike {
  markdown(value: string): void;
  progress(value: string): void;
  button(command: { readonly command: string; readonly title: string; readonly arguments?: unknown[] }): void;
}

/** What the participant needs from its host; the extension's activation supplies it. */
export interface ChatDeps {
  readonly workspaceRoot: () => string | undefined;
  readonly trusted: () => boolean;
  readonly runner: PipelineRunner;
  /** Our own configured provider (openai/anthropic), if one is configured. */
  readonly providerModel: () => ChatModel | undefined;
  /** The `.dot` document in the active editor, if any. */
  readonly activePipeline: () => { readonly path: string; readonly text: string } | undefined;
  readonly expertPrompt: () => string;
  /** `vscode.LanguageModelChatMessage`, to talk to `request.model`. */
  readonly messages?: VscodeMessageFactory;
}

/** The command the save button runs: arguments [dotSource, suggestedFileName]. */
export const savePipelineCommand = 'attractor.chat.savePipeline';

export interface Cancellation {
  readonly signal: AbortSignal;
  /** The host's CancellationToken, handed through to `request.model`. */
  readonly token: unknown;
}
