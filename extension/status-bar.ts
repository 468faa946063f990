// One status bar item for the active run: which pipeline, which node; click shows the graph.
import * as vscode from 'vscode';

export class RunStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('attractor.run', vscode.StatusBarAlignment.Left, 10);
  private pipeline: string | undefined;
  private mode: 'running' | 'debugging' = 'running';

  constructor() {
    this.item.name = 'Attractor run';
    this.item.command = 'attractor.showGraph';
  }

  started(pipeline: string, mode: 'running' | 'debugging'): void {
    this.pipeline = pipeline;
    this.mode = mode;
    this.render();
    this.item.show();
  }

  node(nodeId: string): void {
    if (this.pipeline) this.render(nodeId);
  }

  finished(): void {
    this.pipeline = undefined;
    this.item.hide();
  }

  dispose(): void {
    this.item.dispose();
  }

  private render(nodeId?: string): void {
    const icon = this.mode === 'debugging' ? '$(debug-alt)' : '$(sync~spin)';
    this.item.text = `${icon} ${this.pipeline ?? ''}${nodeId ? `: ${nodeId}` : ''}`;
    this.item.tooltip = `Attractor is ${this.mode} ${this.pipeline ?? ''}. Click to show the graph.`;
  }
}
