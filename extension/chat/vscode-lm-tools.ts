// The language-model tool API (VS Code 1.95+) in the shape we use. @types/vscode 1.91, which this
// repository builds against, predates it, so the API is reached through these types after a
// feature check at runtime; older hosts simply get no tools.
import type * as vscode from 'vscode';

interface ToolInvocationPrepareOptions<T> {
  readonly input: T;
}

interface PreparedToolInvocation {
  readonly invocationMessage?: string;
  readonly confirmationMessages?: { readonly title: string; readonly message: string | vscode.MarkdownString };
}

interface ToolInvocationOptions<T> {
  readonly input: T;
  readonly toolInvocationToken: unknown;
}

interface LanguageModelToolLike<T> {
  prepareInvocation?(options: ToolInvocationPrepareOptions<T>, token: vscode.CancellationToken): vscode.ProviderResult<PreparedToolInvocation>;
  invoke(options: ToolInvocationOptions<T>, token: vscode.CancellationToken): vscode.ProviderResult<unknown>;
}

export interface LmToolsHost {
  readonly registerTool: <T>(name: string, tool: LanguageModelToolLike<T>) => vscode.Disposable;
  /** `new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)])`. */
  readonly textResult: (text: string) => unknown;
}

type ToolClasses = {
  readonly LanguageModelToolResult?: new (parts: unknown[]) => unknown;
  readonly LanguageModelTextPart?: new (value: string) => unknown;
  readonly lm: { readonly registerTool?: LmToolsHost['registerTool'] };
};

export function lmToolsHost(api: typeof vscode): LmToolsHost | undefined {
  const host = api as unknown as ToolClasses;
  const { LanguageModelToolResult: Result, LanguageModelTextPart: TextPart } = host;
  const registerTool = host.lm.registerTool;
  if (!registerTool || !Result || !TextPart) return undefined;
  return { registerTool: registerTool.bind(host.lm), textResult: (text) => new Result([new TextPart(text)]) };
}
