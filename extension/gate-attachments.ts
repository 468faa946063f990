// Files a person attaches to a human gate's answer (ledger §19), from the graph view or the quick pick.
import * as vscode from 'vscode';

/** The open dialog, many files at once; [] when dismissed. Paths are absolute, as the engine records them. */
export async function pickAttachmentFiles(): Promise<string[]> {
  const picked = await vscode.window.showOpenDialog({ canSelectMany: true, canSelectFiles: true, canSelectFolders: false, openLabel: 'Attach', title: 'Attach files to the answer' });
  return (picked ?? []).map((uri) => uri.fsPath);
}

/**
 * Gives a quick pick or input box an "Attach files…" title button; the files picked so far show in
 * the title and are returned by the getter when the answer is taken.
 */
export function offerAttachments(input: vscode.QuickPick<vscode.QuickPickItem> | vscode.InputBox, title: string): () => string[] {
  const files: string[] = [];
  input.title = title;
  input.buttons = [{ iconPath: new vscode.ThemeIcon('attach'), tooltip: 'Attach files…' }];
  input.onDidTriggerButton(async () => {
    for (const file of await pickAttachmentFiles()) if (!files.includes(file)) files.push(file);
    input.title = `${title} · ${files.length} file${files.length === 1 ? '' : 's'} attached`;
  });
  return () => [...files];
}
