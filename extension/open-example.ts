// "Open example pipeline": the bundled example, copied where its tool steps never write into the
// user's workspace, opened so that the walkthrough that offered it stays in sight.
import * as vscode from 'vscode';

const EXAMPLE_FILES = ['human-review.dot', 'human-review.scripted.json'] as const;

export function registerOpenExample(context: vscode.ExtensionContext, examples: vscode.Uri): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('attractor.openExample', async () => {
      await vscode.workspace.fs.createDirectory(examples);
      for (const name of EXAMPLE_FILES) {
        await vscode.workspace.fs.copy(vscode.Uri.joinPath(context.extensionUri, 'examples', name), vscode.Uri.joinPath(examples, name), { overwrite: true });
      }
      // Opened in the Welcome page's own group as a preview, the example would replace the walkthrough
      // and its next steps; beside anything that is not a text editor, and pinned, the guide stays.
      const active = vscode.window.tabGroups.activeTabGroup.activeTab;
      const besideGuide = active !== undefined && !(active.input instanceof vscode.TabInputText);
      await vscode.window.showTextDocument(vscode.Uri.joinPath(examples, EXAMPLE_FILES[0]), { preview: false, ...(besideGuide ? { viewColumn: vscode.ViewColumn.Beside } : {}) });
    }),
  );
}
