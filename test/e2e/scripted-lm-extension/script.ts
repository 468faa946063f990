// The script a scripted language model answers from: the fake `vscode.lm` of the extension tests
// and the test-only extension that registers a real chat model provider share it.

/** One answer: streamed text and tool calls, a LanguageModelError, or no answer until cancelled. */
export type ScriptedReply =
  | { readonly text?: string; readonly toolCalls?: readonly { readonly name: string; readonly input: object }[] }
  | { readonly error: 'NoPermissions' | 'Blocked' | 'NotFound'; readonly message: string }
  | { readonly hang: true; readonly ignoresCancellation?: true };

/** A tool the test extension's "Invoke LM tools" command calls with `vscode.lm.invokeTool`. */
interface ToolInvocation {
  readonly name: string;
  readonly input: object;
}

/** `attractor-scripted-lm.json` in the workspace folder: answers given in order, one per request. */
export interface LmScript {
  readonly replies: ScriptedReply[];
  /** Invoked in order, outside any chat request, by the command "Attractor test: Invoke LM tools". */
  readonly toolInvocations?: readonly ToolInvocation[];
}

/** One line of `attractor-scripted-lm.log.jsonl`: what the model was asked, and what the tools returned. */
export type LmLogEntry =
  | { readonly event: 'request'; readonly messages: number; readonly lastMessage: string; readonly tools: readonly string[]; readonly reply: ScriptedReply | null }
  | { readonly event: 'cancelled' }
  | { readonly event: 'tool'; readonly name: string; readonly result: string }
  | { readonly event: 'tool'; readonly name: string; readonly error: string };
