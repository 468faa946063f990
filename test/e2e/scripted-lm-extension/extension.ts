// A test-only extension (not shipped): a language model chat provider whose one model answers
// from `attractor-scripted-lm.json` in the workspace folder, so a real VS Code can run pipelines,
// @attractor and the LM tools on "the editor's model" with no network and no key. Every request is
// appended to `attractor-scripted-lm.log.jsonl` beside the script for the test to assert on.
// Bundle with esbuild (entry this file, platform node, format cjs, external vscode) to
// dist/extension.js and package this folder with vsce to install it next to attractor.vsix.
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { LmScript, ScriptedReply } from './script';

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
  let replies: ScriptedReply[] | undefined;
  const next = (): ScriptedReply | undefined => {
    replies ??= scriptFile && fs.existsSync(scriptFile) ? (JSON.parse(fs.readFileSync(scriptFile, 'utf8')) as LmScript).replies : [];
    return replies.shift();
  };
  const log = (entry: Record<string, unknown>): void => {
    if (scriptFile) fs.appendFileSync(`${scriptFile.replace(/\.json$/, '')}.log.jsonl`, `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`);
  };

  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider(vendor, {
      provideLanguageModelChatInformation: () => [model],
      provideTokenCount: async (_model, text) => Math.ceil((typeof text === 'string' ? text.length : JSON.stringify(text.content).length) / 4),
      provideLanguageModelChatResponse: async (_model, messages, options, progress, token) => {
        const reply = next();
        log({ event: 'request', messages: messages.length, tools: (options.tools ?? []).map((tool) => tool.name), reply: reply ?? null });
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
  );
}
