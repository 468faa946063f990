import path from 'node:path';
import * as vscode from 'vscode';
import { settingsFromEnv } from '../../engine/llm/provider-settings';
import { isProviderName } from '../../engine/llm/types';
import type { ChatModel } from './chat-model';
import { providerChatModel } from './chat-model';
import type { ChatDeps, ChatHistoryTurn } from './chat-types';
import { savePipelineCommand } from './chat-types';
import { expertPromptPath, loadExpertPrompt } from './expert-prompt';
import { formatLintResult, lintPipelineTool } from './lint-tool';
import { handleChatRequest } from './participant';
import type { PipelineToolInput } from './pipeline-input';
import type { PipelineRunner } from './run-tool';
import { describeRun, formatRunResult, runPipelineTool, untrustedRefusal } from './run-tool';

const participantId = 'attractor.chat';

/** What the extension's activation hands over; nothing else of the extension is reached into. */
export interface RegisterChatDeps {
  /** Runs a pipeline with the engine and shows it in the graph view and human-gate panel. */
  readonly runner: PipelineRunner;
  /** Opens the graph view on a saved pipeline. */
  readonly openGraphView: (uri: vscode.Uri) => unknown;
  /** Our configured provider client; by default `attractor.chat.provider`/`.model` with keys from the environment. */
  readonly providerModel?: () => ChatModel | undefined;
  /** Workspace trust; by default `vscode.workspace.isTrusted`. */
  readonly trusted?: () => boolean;
}

/** Registers the `run_pipeline`/`lint_pipeline` tools, the `@attractor` participant and its save command. */
export function registerChat(context: vscode.ExtensionContext, deps: RegisterChatDeps): void {
  const promptFile = expertPromptPath(context.extensionPath);
  const chatDeps: ChatDeps = {
    workspaceRoot: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    trusted: deps.trusted ?? (() => vscode.workspace.isTrusted),
    runner: deps.runner,
    providerModel: deps.providerModel ?? configuredProviderModel,
    activePipeline: () => {
      const document = vscode.window.activeTextEditor?.document;
      return document && document.fileName.endsWith('.dot') ? { path: document.fileName, text: document.getText() } : undefined;
    },
    expertPrompt: () => loadExpertPrompt(promptFile),
    messages: vscode.LanguageModelChatMessage,
  };

  const textResult = (text: string): vscode.LanguageModelToolResult => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
  context.subscriptions.push(
    vscode.lm.registerTool<PipelineToolInput>('run_pipeline', {
      prepareInvocation: ({ input }) => {
        // Asking to confirm a run that invoke will refuse would be a question with no answer.
        if (!chatDeps.trusted()) return { invocationMessage: `Attractor: ${untrustedRefusal}` };
        const { title, message } = describeRun(input, chatDeps.workspaceRoot());
        return { invocationMessage: 'Running Attractor pipeline', confirmationMessages: { title, message: new vscode.MarkdownString(message) } };
      },
      invoke: async ({ input }, token) => {
        const result = await runPipelineTool(input, { trusted: chatDeps.trusted(), workspaceRoot: chatDeps.workspaceRoot(), runner: deps.runner, signal: abortSignalOf(token) });
        return textResult(formatRunResult(result));
      },
    }),
    vscode.lm.registerTool<PipelineToolInput>('lint_pipeline', {
      invoke: ({ input }) => textResult(formatLintResult(lintPipelineTool(input, chatDeps.workspaceRoot()))),
    }),
  );

  const participant = vscode.chat.createChatParticipant(participantId, (request, chatContext, stream, token) =>
    handleChatRequest(
      { prompt: request.prompt, command: request.command, model: request.model },
      chatContext.history as readonly ChatHistoryTurn[],
      stream,
      { signal: abortSignalOf(token), token },
      chatDeps,
    ),
  );
  participant.iconPath = new vscode.ThemeIcon('type-hierarchy');
  context.subscriptions.push(
    participant,
    vscode.commands.registerCommand(savePipelineCommand, async (source: string, fileName: string) => {
      const root = vscode.workspace.workspaceFolders?.[0]?.uri;
      const target = await vscode.window.showSaveDialog({ ...(root ? { defaultUri: vscode.Uri.joinPath(root, path.basename(fileName)) } : {}), filters: { 'Attractor pipeline': ['dot'] } });
      if (!target) return;
      await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(source));
      await vscode.window.showTextDocument(target);
      await deps.openGraphView(target);
    }),
  );
}

function configuredProviderModel(): ChatModel | undefined {
  const config = vscode.workspace.getConfiguration('attractor.chat');
  const provider = config.get<string>('provider', '').trim().toLowerCase();
  const model = config.get<string>('model', '').trim();
  if (!isProviderName(provider) || !model) return undefined;
  const settings = settingsFromEnv();
  return settings[provider].apiKey ? providerChatModel({ provider, model, settings }) : undefined;
}

function abortSignalOf(token: vscode.CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}
