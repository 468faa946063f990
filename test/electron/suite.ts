// Inside VS Code: the extension activates on a pipeline, its language server lints, and the demo
// backend runs the example to the end through the debugger (scripted answers, no person needed).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';

const tests: Array<[string, () => Promise<void>]> = [];
const test = (name: string, body: () => Promise<void>): void => void tests.push([name, body]);

async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const workspace = (): string => vscode.workspace.workspaceFolders![0]!.uri.fsPath;

test('a .dot pipeline opens as attractor-dot and the language server publishes diagnostics', async () => {
  const file = path.join(workspace(), 'typo.dot');
  fs.writeFileSync(file, 'digraph t {\n  start [shape=Mdiamond]\n  a [promt="x"]\n  done [shape=Msquare]\n  start -> a -> done\n}\n');
  const document = await vscode.workspace.openTextDocument(file);
  await vscode.window.showTextDocument(document);
  assert.equal(document.languageId, 'attractor-dot');
  const diagnostics = await until(() => {
    const found = vscode.languages.getDiagnostics(document.uri);
    return found.some((d) => d.message.includes('promt')) ? found : undefined;
  }, 'diagnostics for the misspelt attribute');
  assert.ok(diagnostics.length > 0);
});

test('the commands are registered', async () => {
  const commands = await vscode.commands.getCommands(true);
  for (const id of ['attractor.run', 'attractor.debug', 'attractor.lintWorkspace', 'attractor.showGraph', 'attractor.openRun', 'attractor.resumeRun', 'attractor.openTrace', 'attractor.setApiKey']) {
    assert.ok(commands.includes(id), id);
  }
});

test('debugging the example with the demo backend runs it to success', async () => {
  const program = path.join(workspace(), 'human-review.dot');
  await vscode.window.showTextDocument(vscode.Uri.file(program));
  const ended = new Promise<void>((resolve) => vscode.debug.onDidTerminateDebugSession(() => resolve()));
  assert.ok(await vscode.debug.startDebugging(vscode.workspace.workspaceFolders![0], { type: 'attractor', request: 'launch', name: 'demo', program }));
  await ended;
  const runsRoot = path.join(workspace(), '.attractor-runs');
  const [run] = fs.readdirSync(runsRoot);
  const checkpoint = JSON.parse(fs.readFileSync(path.join(runsRoot, run!, 'checkpoint.json'), 'utf8')) as { status: string };
  assert.equal(checkpoint.status, 'success');
});

export async function run(): Promise<void> {
  const failures: string[] = [];
  for (const [name, body] of tests) {
    try {
      await body();
      console.log(`  ✓ ${name}`);
    } catch (error) {
      console.log(`  ✗ ${name}\n${String(error instanceof Error ? error.stack : error)}`);
      failures.push(name);
    }
  }
  if (failures.length > 0) throw new Error(`${failures.length} failed: ${failures.join('; ')}`);
}
