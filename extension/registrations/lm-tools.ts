// Language models: the chat participant and tools, where an LLM node would run (hover), API keys.
import * as vscode from 'vscode';
import { registerChat } from '../chat/register';
import type { Ctx } from '../ctx';
import { LANGUAGE_ID } from '../language-client';
import { routeHover } from '../lm/route-hover';
import { llmBackend, setApiKeyCommand } from '../secrets';

export function register(ctx: Ctx): void {
  ctx.subscribe(
    // Beside the language server's hover: where an LLM node would run needs the editor's models and the stored keys.
    vscode.languages.registerHoverProvider({ language: LANGUAGE_ID }, {
      provideHover: async (document, position) => {
        const node = await ctx.queries.nodeAt(document.uri, position);
        const text = node ? routeHover(node, await llmBackend(ctx.llmAccess, ctx.settings())) : undefined;
        return text ? new vscode.Hover(new vscode.MarkdownString(text)) : undefined;
      },
    }),
  );
  ctx.command('attractor.setApiKey', () => setApiKeyCommand(ctx.extension.secrets));
  registerChat(ctx.extension, {
    runner: ctx.runs.chatRunner,
    openGraphView: async (uri) => ctx.panel.show(await vscode.workspace.openTextDocument(uri), { keepRun: true }),
  });
}
