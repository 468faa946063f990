// End to end, VS Code attached to `attractor serve` (issue 19): a server runs a gated pipeline;
// *Attractor: Connect to server…* lists it in the Runs view; opening it follows the run in the graph
// view; its gate is answered there and the server's run finishes (a second run's, answered over HTTP
// as the browser app does, closes there). Then *Attach debugger* on a second
// run: its gate is answered in VS Code, it stops at a breakpoint held on the server (with no time
// travel offered: the attach takes it back), and continues to its end. Last, VS Code dies (kill -9)
// while attached to a third run held at the breakpoint: once the debugger's lease lapses the server
// lets the run go on to its end. Screenshots go to docs/e2e/.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chooseFromContextMenu, frameWith, openFile, readAttractorLog, screenshots, shot, startCodeServer } from './code-server';
import { gated, heldPipeline } from '../server/serve-harness';

const repo = path.resolve(__dirname, '..', '..');
const vsix = path.join(repo, 'attractor.vsix');
/** The server's lease for an attached debugger: short, so that the last step waits little for it. */
const LEASE_SECONDS = 3;

/** `attractor serve` from the packaged CLI, on a free loopback port; resolves to its URL. */
function startServer(root: string): { url: Promise<string>; stop: () => void } {
  const child = spawn(process.execPath, [path.join(repo, 'dist', 'cli.js'), 'serve', '--port', '0', '--root', root, '--attach-lease', String(LEASE_SECONDS)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`attractor serve exited ${code}`)));
  });
  return { url, stop: () => void child.kill('SIGTERM') };
}

async function runSummary(url: string, id: string): Promise<{ status: string; held: { nodeId: string } | null }> {
  return (await (await fetch(`${url}/pipelines/${id}`)).json()) as { status: string; held: { nodeId: string } | null };
}

async function runStatus(url: string, id: string): Promise<string> {
  return (await runSummary(url, id)).status;
}

async function submit(url: string, file: string): Promise<string> {
  return ((await (await fetch(`${url}/pipelines`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: file }) })).json()) as { id: string }).id;
}

/** Answers the run's waiting gate over HTTP, as the browser app or another client does. */
async function answerElsewhere(url: string, id: string, choice: string): Promise<void> {
  const { questions } = (await (await fetch(`${url}/pipelines/${id}/questions`)).json()) as { questions: { id: string }[] };
  const [question] = questions;
  assert.ok(question, 'the run waits at a gate');
  const reply = await fetch(`${url}/pipelines/${id}/questions/${encodeURIComponent(question.id)}/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ choice }) });
  assert.equal(reply.status, 200, await reply.text());
}

async function main(): Promise<void> {
  assert.ok(fs.existsSync(vsix), `${vsix} missing: run npm run package`);
  const vscode = await startCodeServer({ vsix, files: { 'gated.dot': gated, 'held.dot': heldPipeline } });
  const server = startServer(vscode.workspace);
  const { page } = vscode;
  try {
    const url = await server.url;
    const submitted = { id: await submit(url, 'gated.dot') };

    // 1. Attractor: Connect to server… with the server's URL and no token (loopback).
    await openFile(page, 'gated.dot', 'digraph');
    await page.waitForSelector('.statusbar-item:has-text("Attractor DOT")');
    await page.keyboard.press('F1');
    await page.waitForSelector('.quick-input-widget:not([style*="display: none"]) input');
    await page.keyboard.type('Attractor: Connect to server');
    await page.waitForSelector('.quick-input-list .monaco-list-row:has-text("Connect to server")');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.quick-input-widget:not([style*="display: none"]) .quick-input-message:has-text("attractor serve")');
    await page.keyboard.press('Control+A');
    await page.keyboard.type(url);
    await page.keyboard.press('Enter');
    await page.waitForSelector('.quick-input-widget:not([style*="display: none"]) .quick-input-message:has-text("Bearer token")');
    await page.keyboard.press('Enter');

    // 2. The Runs view lists the server's run, waiting at its gate.
    await page.keyboard.press('Control+Shift+D');
    const runRow = page.locator('.monaco-list-row:has-text("shipit")').filter({ hasText: 'question waiting' });
    if (!(await runRow.isVisible())) await page.click('.pane-header:has-text("Attractor Runs")');
    await runRow.waitFor({ timeout: 60_000 });
    await shot(page, '19-server-runs');

    // 3. Opening it follows the run in the graph view; its gate asks there.
    await runRow.click();
    const graph = await frameWith(page, '.gate-panel:not([hidden])', 60_000);
    assert.match(await graph.locator('.gate-panel').innerText(), /Ship it\?/);
    await shot(page, '20-server-run-gate');

    // 4. The answer goes over HTTP: the server's run finishes, and the graph view follows it there.
    await graph.click('.gate-option[data-key="Y"]');
    await graph.waitForSelector('tr[data-node="done"]', { timeout: 60_000 });
    assert.equal(await runStatus(url, submitted.id), 'success');
    await page.waitForSelector('.monaco-list-row:has-text("shipit"):has-text("success")', { timeout: 30_000 });
    await shot(page, '21-server-run-finished');

    // 4b. A gate answered elsewhere (the browser app, another client) closes in VS Code: a second run, answered over HTTP.
    const second = await submit(url, 'gated.dot');
    const secondRow = page.locator('.monaco-list-row:has-text("shipit")').filter({ hasText: 'question waiting' });
    await secondRow.waitFor({ timeout: 60_000 });
    await secondRow.click();
    const secondGraph = await frameWith(page, '.gate-panel:not([hidden])', 60_000);
    await answerElsewhere(url, second, 'Y');
    await secondGraph.waitForSelector('.gate-panel[hidden]', { state: 'attached', timeout: 60_000 });
    await secondGraph.waitForSelector('tr[data-node="done"]', { timeout: 60_000 });
    assert.equal(await runStatus(url, second), 'success');

    // 5. F9 on held.dot's `build` node, then a run of it on the server, waiting at its first gate.
    await openFile(page, 'held.dot', 'digraph held');
    // The graph view split the editor: F9 acts on the group held.dot opened in.
    await page.click('.editor-group-container.active .monaco-editor .view-lines');
    await page.keyboard.press('Control+G');
    await page.keyboard.type(String(heldPipeline.split('\n').findIndex((line) => line.includes('build [')) + 1));
    await page.keyboard.press('Enter');
    await page.keyboard.press('F9');
    await page.waitForSelector('.monaco-editor .codicon-debug-breakpoint');
    const heldId = await submit(url, 'held.dot');

    // 6. Attach debugger from the run's context menu; its gate asks in VS Code and is answered there.
    const heldRow = page.locator('.monaco-list-row:has-text("held")').filter({ hasText: 'question waiting' });
    await heldRow.waitFor({ timeout: 60_000 });
    await chooseFromContextMenu(page, heldRow, 'Attach debugger');
    await page.waitForSelector('.debug-toolbar', { timeout: 60_000 });
    await page.click('.quick-input-list .monaco-list-row:has-text("Go")', { timeout: 60_000 });

    // 7. The server holds the run at the breakpoint; VS Code shows it stopped there; Continue ends it.
    await page.waitForSelector('.monaco-editor .codicon-debug-stackframe', { timeout: 60_000 });
    assert.equal((await runSummary(url, heldId)).held?.nodeId, 'build');
    assert.equal(await page.locator('.debug-toolbar .codicon-debug-step-back, .debug-toolbar .codicon-debug-reverse-continue').count(), 0, 'no time travel on an attached run');
    await shot(page, '22-attached-at-server-breakpoint');
    await page.click('.debug-toolbar .codicon-debug-continue');
    for (let i = 0; i < 300 && (await runStatus(url, heldId)) === 'running'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await runStatus(url, heldId), 'success');
    await page.waitForSelector('.debug-toolbar', { state: 'hidden', timeout: 30_000 });
    await shot(page, '23-attached-run-finished');

    // 8. Attached again, to a third run held at the breakpoint, VS Code dies: the lease lapses and the run goes on.
    // First the Runs view shows the last run finished: a right-click while that row changes can reach it.
    await page.locator('.pane:has(.pane-header:has-text("Attractor Runs")) .monaco-list-row:has-text("held")').filter({ hasText: 'success' }).first().waitFor({ timeout: 30_000 });
    const orphanId = await submit(url, 'held.dot');
    const orphanRow = page.locator('.monaco-list-row:has-text("held")').filter({ hasText: 'question waiting' });
    await orphanRow.waitFor({ timeout: 60_000 });
    await chooseFromContextMenu(page, orphanRow, 'Attach debugger');
    await page.click('.quick-input-list .monaco-list-row:has-text("Go")', { timeout: 60_000 });
    await page.waitForSelector('.monaco-editor .codicon-debug-stackframe', { timeout: 60_000 });
    assert.equal((await runSummary(url, orphanId)).held?.nodeId, 'build');
    await vscode.crash();
    for (let i = 0; i < 600 && (await runStatus(url, orphanId)) === 'running'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await runStatus(url, orphanId), 'success', `the server let the run go within ${LEASE_SECONDS} s of the last renewal`);
    const events = await (await fetch(`${url}/pipelines/${orphanId}/events`)).text();
    assert.match(events, /event: lease:lapsed\ndata: \{"type":"lease:lapsed","periodMs":3000,"droppedBreakpoints":\{"nodes":\["build"\]/);
    console.log('e2e (attached to attractor serve): passed');
  } catch (error) {
    await page.screenshot({ path: path.join(screenshots, 'failure-remote.png') }).catch(() => undefined);
    console.error(readAttractorLog(vscode.userDataDir));
    throw error;
  } finally {
    server.stop();
    await vscode.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
