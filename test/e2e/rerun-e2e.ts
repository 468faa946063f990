// End to end, "Re-run from here" in a real VS Code (code-server): a finished run of a pipeline whose
// tool node appends to a file is re-run (1) from the command palette, picking the run and a visit,
// and (2) from the graph view's trace panel. Each makes a branch run beside the original that starts
// with the file as it was before that visit. Screenshots go to docs/e2e/.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { frameWith, inCodeServer, openFile, readAttractorLog, runCommand, shot } from './code-server';

const repo = path.resolve(__dirname, '..', '..');
const vsix = path.join(repo, 'attractor.vsix');

/** `attempt` appends a line to log.txt; `check` routes back to it until three lines are there. */
const pipeline = String.raw`digraph retry_log {
  start [shape=Mdiamond]
  done [shape=Msquare]
  attempt [shape=parallelogram, tool_command="echo try >> log.txt && wc -l < log.txt"]
  check [shape=diamond]
  start -> attempt -> check
  check -> attempt [condition="context.tool.last_line=1"]
  check -> attempt [condition="context.tool.last_line=2"]
  check -> done
}
`;

/** Waits for a run directory's checkpoint to say the run ended; returns its status. */
async function finished(page: Page, runDirectory: string): Promise<string> {
  const file = path.join(runDirectory, 'checkpoint.json');
  for (let waited = 0; waited < 60_000; waited += 250) {
    const status = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { status: string }).status : 'none';
    if (status === 'success' || status === 'fail') return status;
    await page.waitForTimeout(250);
  }
  throw new Error(`${runDirectory} did not finish within 60 s`);
}

function tracedNodes(runDirectory: string): string[] {
  return fs.readFileSync(path.join(runDirectory, 'trace.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { node_id: string }).node_id);
}

async function main(): Promise<void> {
  assert.ok(fs.existsSync(vsix), `${vsix} missing: run npm run package`);
  await inCodeServer('rerun', { vsix, files: { 'retry.dot': pipeline } }, async (vscode) => {
    const { page, workspace } = vscode;
    const runsRoot = path.join(workspace, '.attractor-runs');
    const original = path.join(runsRoot, 'retry-1');
    const log = path.join(workspace, 'log.txt');
    // The run to go back into, made by the CLI: three attempts, log.txt holds three lines.
    const ran = spawnSync(process.execPath, [path.join(repo, 'dist', 'cli.js'), 'run', 'retry.dot', '--logs-root', original], { cwd: workspace, encoding: 'utf8' });
    assert.equal(ran.status, 0, ran.stderr);
    assert.equal(fs.readFileSync(log, 'utf8'), 'try\ntry\ntry\n');
    const originalTrace = fs.readFileSync(path.join(original, 'trace.jsonl'), 'utf8');

    // 1. Attractor: Re-run from… picks the run, then the visit attempt@2: the branch starts with
    //    log.txt as it was before that visit (one line) and runs attempt twice more.
    await openFile(page, 'retry.dot', 'digraph');
    await page.waitForSelector('.statusbar-item:has-text("Attractor DOT")');
    await runCommand(page, 'Attractor: Re-run from…', 'Attractor: Re');
    await page.click('.quick-input-list .monaco-list-row:has-text("retry-1")', { timeout: 30_000 });
    const visit = page.locator('.quick-input-list .monaco-list-row:has-text("attempt@2")');
    await visit.waitFor({ timeout: 30_000 });
    await shot(page, '24-rerun-pick-visit');
    await visit.click();
    const branch = `${original}.branch-1`;
    assert.equal(await finished(page, branch), 'success', readAttractorLog(vscode.userDataDir));
    assert.deepEqual(tracedNodes(branch), ['start', 'attempt', 'check', 'attempt', 'check', 'attempt', 'check', 'done']);
    assert.equal(fs.readFileSync(log, 'utf8'), 'try\ntry\ntry\n', 'the branch started from one line, not from the three the run left');
    assert.equal(fs.readFileSync(path.join(original, 'trace.jsonl'), 'utf8'), originalTrace, 'the original run is left as it was');
    const graph = await frameWith(page, 'tr[data-node="done"]', 60_000);
    await shot(page, '25-rerun-branch-finished');

    // 2. In the graph view of the original run, a visit's "Re-run from here" does the same.
    await page.keyboard.press('Control+Shift+D');
    const runRow = page.locator('.monaco-list-row:has-text("retry_log")').filter({ hasText: 'succeeded' }).last();
    await page.waitForSelector('.pane-header:has-text("Attractor Runs")');
    if (!(await runRow.isVisible())) await page.click('.pane-header:has-text("Attractor Runs")');
    await runRow.waitFor({ timeout: 30_000 });
    fs.writeFileSync(log, 'edited by hand\n');
    await runRow.click();
    await graph.waitForSelector('tr[data-node="attempt"][data-iteration="0"]');
    await graph.click('tr[data-node="attempt"] >> nth=0');
    const rerun = graph.locator('.visit-artifacts .rerun-from');
    await rerun.waitFor({ state: 'visible', timeout: 30_000 });
    await shot(page, '26-rerun-from-here');
    await rerun.click();
    // log.txt was edited by hand since the run: the restore asks before it puts that aside.
    const discard = page.locator('.monaco-dialog-box:has-text("change(s) the run did not make")');
    await discard.waitFor({ timeout: 60_000 });
    await discard.locator('.monaco-button:has-text("Restore anyway")').click();
    // The graph view shows the original run, so the branch is its second.
    const made = `${original}.branch-2`;
    assert.equal(await finished(page, made), 'success', readAttractorLog(vscode.userDataDir));
    // From before attempt@1: log.txt did not exist then, so the hand edit is put aside and three attempts run.
    assert.deepEqual(tracedNodes(made), ['start', 'attempt', 'check', 'attempt', 'check', 'attempt', 'check', 'done']);
    assert.equal(fs.readFileSync(log, 'utf8'), 'try\ntry\ntry\n');
    await shot(page, '27-rerun-from-graph-finished');
    console.log('e2e (re-run from here): passed');
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
