// The pipeline language: documents claimed from other DOT extensions, the code lens, linting the
// workspace (the language server, started with the context, publishes the diagnostics).
import * as vscode from 'vscode';
import { PipelineCodeLensProvider } from '../code-lens';
import type { Ctx } from '../ctx';
import { LANGUAGE_ID } from '../language-client';
import { looksLikeAttractorPipeline } from '../language-detection';
import type { ExtensionSettings } from '../settings';

export function register(ctx: Ctx): void {
  ctx.subscribe(
    vscode.languages.registerCodeLensProvider({ language: LANGUAGE_ID }, new PipelineCodeLensProvider()),
    vscode.workspace.onDidOpenTextDocument((document) => claimIfPipeline(document, ctx.settings())),
  );
  for (const document of vscode.workspace.textDocuments) claimIfPipeline(document, ctx.settings());
  ctx.command('attractor.lintWorkspace', async () => {
    // Opening a document hands it to the language server, which publishes its diagnostics.
    const files = await vscode.workspace.findFiles('**/*.{dot,gv}', '**/{node_modules,.attractor-runs}/**', 2000);
    let linted = 0;
    for (const file of files) {
      const document = await vscode.workspace.openTextDocument(file);
      if (document.languageId !== LANGUAGE_ID) continue;
      linted++;
    }
    ctx.log.info(`lint workspace: ${linted} pipeline(s)`);
    await vscode.commands.executeCommand('workbench.actions.view.problems');
  });
}

/** Another DOT extension may own `.dot`; a document that is an Attractor pipeline is taken over (setting `attractor.languageDetection`). */
function claimIfPipeline(document: vscode.TextDocument, settings: ExtensionSettings): void {
  if (settings.languageDetection !== 'auto' || document.languageId === LANGUAGE_ID) return;
  if (!/\.(dot|gv)$/i.test(document.uri.path) && document.languageId !== 'dot') return;
  if (looksLikeAttractorPipeline(document.getText())) void vscode.languages.setTextDocumentLanguage(document, LANGUAGE_ID);
}
