// A test-only extension (not shipped): a language model chat provider whose one model answers
// from `attractor-scripted-lm.json` in the workspace folder, so a real VS Code can run pipelines,
// @attractor and the LM tools on "the editor's model" with no network and no key. Every request is
// appended to `attractor-scripted-lm.log.jsonl` beside the script for the test to assert on, and so
// is every result of the command "Attractor test: Invoke LM tools" (`vscode.lm.invokeTool` outside
// a chat request, as any extension may call another's tools).
// Bundle with esbuild (entry this file, platform node, format cjs, external vscode) to
// dist/extension.js and package this folder with vsce to install it next to attractor.vsix.
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { LmLogEntry, LmScript } from './script';

const vendor = 'attractor-scripted';

const model: vscode.LanguageModelChatInformation = {
  id: 'scripted-claude',
  name: 'Scripted Claude',
  family: 'claude-scripted',
  version: '1',
  maxInputTokens: 200_000,
  maxOutputTokens: 8_192,
  capabilities: { toolCalling: true },
};

export function activate(context: vscode.ExtensionContext): void {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const scriptFile = folder && path.join(folder, 'attractor-scripted-lm.json');
  let script: LmScript | undefined;
  const loadScript = (): LmScript => (script ??= scriptFile && fs.existsSync(scriptFile) ? (JSON.parse(fs.readFileSync(scriptFile, 'utf8')) as LmScript) : { replies: [] });
  const log = (entry: LmLogEntry): void => {
    if (scriptFile) fs.appendFileSync(`${scriptFile.replace(/\.json$/, '')}.log.jsonl`, `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`);
  };

  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider(vendor, {
      provideLanguageModelChatInformation: () => [model],
      provideTokenCount: async (_model, text) => Math.ceil((typeof text === 'string' ? text.length : JSON.stringify(text.content).length) / 4),
      provideLanguageModelChatResponse: async (_model, messages, options, progress, token) => {
        const reply = loadScript().replies.shift();
        log({ event: 'request', messages: messages.length, lastMessage: textOf(messages.at(-1)), tools: (options.tools ?? []).map((tool) => tool.name), reply: reply ?? null });
        token.onCancellationRequested(() => log({ event: 'cancelled' }));
        if (!reply) throw vscode.LanguageModelError.NotFound('the scripted model has no reply left');
        if ('error' in reply) throw vscode.LanguageModelError[reply.error](reply.message);
        if ('hang' in reply) {
          await new Promise<void>((resolve) => (reply.ignoresCancellation ? undefined : token.onCancellationRequested(() => resolve())));
          return;
        }
        if (reply.text) progress.report(new vscode.LanguageModelTextPart(reply.text));
        (reply.toolCalls ?? []).forEach((call, i) => progress.report(new vscode.LanguageModelToolCallPart(`scripted_${Date.now()}_${i}`, call.name, call.input)));
      },
    }),
    vscode.commands.registerCommand('attractorScripted.invokeTools', async () => {
      for (const { name, input } of loadScript().toolInvocations ?? []) {
        try {
          const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
          log({ event: 'tool', name, result: result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('') });
        } catch (error) {
          log({ event: 'tool', name, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
        }
      }
    }),
  );
  // VS Code resolves a provider's models lazily: until an extension selects them, the chat view's
  // model picker lists none (only "Sign in to use Copilot") and a participant's request fails with
  // "Language model unavailable" (code-server 4.139, VS Code 1.139).
  void vscode.lm.selectChatModels({ vendor });
}

function textOf(message: vscode.LanguageModelChatRequestMessage | undefined): string {
  return (message?.content ?? []).map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
}
