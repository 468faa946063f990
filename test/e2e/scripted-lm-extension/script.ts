// The script a scripted language model answers from: the fake `vscode.lm` of the extension tests
// and the test-only extension that registers a real chat model provider share it.

/** One answer: streamed text and tool calls, a LanguageModelError, or no answer until cancelled. */
export type ScriptedReply =
  | { readonly text?: string; readonly toolCalls?: readonly { readonly name: string; readonly input: object }[] }
  | { readonly error: 'NoPermissions' | 'Blocked' | 'NotFound'; readonly message: string }
  | { readonly hang: true; readonly ignoresCancellation?: true };

/** `attractor-scripted-lm.json` in the workspace folder: answers given in order, one per request. */
export interface LmScript {
  readonly replies: ScriptedReply[];
}
