// The debugger: launch configurations (F5, the dynamic entries), attaching to a server's run, and
// the debug adapter, run inline in the extension host.
import * as vscode from 'vscode';
import { AttractorDebugSession } from '../../debug-adapter';
import { DEBUG_TYPE } from '../../host/protocol/debug';
import type { Ctx } from '../ctx';
import { dynamicConfigurations, initialConfigurations, resolveAttachConfiguration, type AttractorAttachConfiguration, type AttractorDebugConfiguration } from '../debug-configuration';
import { LANGUAGE_ID } from '../language-client';
import { llmBackendFactory } from '../secrets';

export function register(ctx: Ctx): void {
  /** Attaching runs nothing here, so it needs no trust: the server decided what it runs. */
  const resolveAttach = async (config: Partial<AttractorAttachConfiguration>): Promise<AttractorAttachConfiguration | undefined> => {
    const resolution = resolveAttachConfiguration(config, await ctx.remote.connection());
    if (resolution.ok) return resolution.configuration;
    void vscode.window.showErrorMessage(resolution.message);
    return undefined;
  };
  ctx.subscribe(
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, {
      provideDebugConfigurations: () => initialConfigurations(),
      resolveDebugConfiguration: async (folder, config) => (config.request === 'attach' ? resolveAttach(config as Partial<AttractorAttachConfiguration>) : ctx.runs.resolve(config as Partial<AttractorDebugConfiguration>, folder)),
    }),
    vscode.debug.registerDebugConfigurationProvider(
      DEBUG_TYPE,
      {
        provideDebugConfigurations: () => {
          const active = vscode.window.activeTextEditor?.document;
          return active?.languageId === LANGUAGE_ID && active.uri.scheme === 'file' ? dynamicConfigurations(active.uri.fsPath) : [];
        },
      },
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, {
      // Inline: the adapter shares the extension host; LLM keys reach it from SecretStorage, and VS Code's models through vscode.lm.
      createDebugAdapterDescriptor: async () => new vscode.DebugAdapterInlineImplementation(new AttractorDebugSession({ backendFactory: await llmBackendFactory(ctx.llmAccess, ctx.settings()) })),
    }),
  );
}
