// "▶ Run | Debug | Graph" above each `digraph`.
import * as vscode from 'vscode';

const DIGRAPH = /^\s*(strict\s+)?digraph\b/gim;

export class PipelineCodeLensProvider implements vscode.CodeLensProvider {
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const text = document.getText();
    const lenses: vscode.CodeLens[] = [];
    for (const match of text.matchAll(DIGRAPH)) {
      const position = document.positionAt(match.index + match[0].length - match[0].trimStart().length);
      const range = new vscode.Range(position, position);
      lenses.push(
        new vscode.CodeLens(range, { title: '▶ Run', command: 'attractor.run', arguments: [document.uri] }),
        new vscode.CodeLens(range, { title: 'Debug', command: 'attractor.debug', arguments: [document.uri] }),
        new vscode.CodeLens(range, { title: 'Graph', command: 'attractor.showGraph', arguments: [document.uri] }),
      );
    }
    return lenses;
  }
}
