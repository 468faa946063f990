// End to end, VS Code attached to `attractor serve` (issue 19): a server runs a gated pipeline;
// *Attractor: Connect to server…* lists it in the Runs view; opening it follows the run in the graph
// view; its gate is answered there and the server's run finishes. Screenshots go to docs/e2e/.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { frameWith, openFile, readAttractorLog, screenshots, shot, startCodeServer } from './code-server';
import { gated } from '../engine/server/serve-harness';

const repo = path.resolve(__dirname, '..', '..');
const vsix = path.join(repo, 'attractor.vsix');

/** `attractor serve` from the packaged CLI, on a free loopback port; resolves to its URL. */
function startServer(root: string): { url: Promise<string>; stop: () => void } {
  const child = spawn(process.execPath, [path.join(repo, 'dist', 'cli.js'), 'serve', '--port', '0', '--root', root], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
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

async function runStatus(url: string, id: string): Promise<string> {
  return ((await (await fetch(`${url}/pipelines/${id}`)).json()) as { status: string }).status;
}

async function main(): Promise<void> {
  assert.ok(fs.existsSync(vsix), `${vsix} missing: run npm run package`);
  const vscode = await startCodeServer({ vsix, files: { 'gated.dot': gated } });
  const server = startServer(vscode.workspace);
  const { page } = vscode;
  try {
    const url = await server.url;
    const submitted = (await (await fetch(`${url}/pipelines`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: 'gated.dot' }) })).json()) as { id: string };

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
