// End to end in a real VS Code (code-server): install the packaged .vsix, open an example, see
// its lint warning in Problems, set a breakpoint on a node (F9), debug (F5), stop there with the
// node highlighted in the graph view, continue to the human gate, answer it in the panel, and see
// the run finish with its trace, then find it in the Runs view and open the diff of a file a node
// wrote; then run LLM nodes on the editor's own (scripted) chat model with no API key. Screenshots of
// each step go to docs/e2e/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { OVERLAPS_FILE, overlappingFanOut } from '../fixtures/overlapping-fan-out';
import { clickRunLens, frameWith, openFile, readAttractorLog, runCommand, startCodeServer } from './code-server';
import type { LmScript } from './scripted-lm-extension/script';
import { packageScriptedLm } from './scripted-lm-vsix';

const repo = path.resolve(__dirname, '..', '..');
const shots = path.join(repo, 'docs', 'e2e');
const vsix = path.join(repo, 'attractor.vsix');

/** The human-review example with a misspelt attribute on `draft` (a lint warning, not an error). */
function workspaceFiles(): Record<string, string> {
  const example = fs.readFileSync(path.join(repo, 'examples', 'human-review.dot'), 'utf8');
  const pipeline = example.replace('draft   [prompt=', 'draft   [temprature="0.2", prompt=');
  assert.notEqual(pipeline, example, 'the example changed: update the e2e fixture edit');
  // The demo script without its scripted human answers, so the gate asks the graph view.
  const script = JSON.parse(fs.readFileSync(path.join(repo, 'examples', 'human-review.scripted.json'), 'utf8')) as Record<string, unknown>;
  delete script.human;
  delete script.expect;
  return { 'human-review.dot': pipeline, 'human-review.scripted.json': JSON.stringify(script, null, 2), 'fan.dot': overlappingFanOut, 'fan.scripted.json': '{}' };
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(shots, `${name}.png`) });
  console.log(`  ✓ ${name}`);
}

async function main(): Promise<void> {
  assert.ok(fs.existsSync(vsix), `${vsix} missing: run npm run package`);
  fs.mkdirSync(shots, { recursive: true });
  const files = workspaceFiles();
  const draftLine = files['human-review.dot']!.split('\n').findIndex((line) => line.includes('draft   [')) + 1;
  // One branch at a time: the fan-out in step 8 proves the setting reaches the engine.
  const vscode = await startCodeServer({ vsix, files, userSettings: { 'attractor.maxParallel': 1 } });
  const { page } = vscode;
  try {
    // 1. Open the example.
    await openFile(page, 'human-review.dot', 'digraph');
    await page.waitForSelector('.statusbar-item:has-text("Attractor DOT")');
    await shot(page, '01-example-open');

    // 2. The language server's warning in the Problems view.
    await page.keyboard.press('Control+Shift+M');
    await page.waitForSelector('.markers-panel .monaco-list-row:has-text("temprature")', { timeout: 60_000 });
    await shot(page, '02-problems');

    // 3. F9 on the `draft` node statement.
    await page.click('.monaco-editor .view-lines');
    await page.keyboard.press('Control+G');
    await page.keyboard.type(String(draftLine));
    await page.keyboard.press('Enter');
    await page.keyboard.press('F9');
    await page.waitForSelector('.monaco-editor .codicon-debug-breakpoint');
    await shot(page, '03-breakpoint');

    // 4. F5: the attractor debugger (claimed by language), stopped on `draft`, highlighted in the graph.
    await page.keyboard.press('F5');
    const graph = await frameWith(page, '[id="node:draft"].selected', 60_000); // the graph renders late on a busy machine
    assert.match(await graph.locator('body').innerText(), /paused/);
    await page.waitForSelector('.debug-toolbar');
    await page.waitForSelector('.monaco-editor .codicon-debug-stackframe');
    await shot(page, '04-stopped-at-breakpoint');

    // 5. Continue to the human gate; answer it in the graph view.
    await page.click('.debug-toolbar .codicon-debug-continue');
    await graph.waitForSelector('.gate-panel:not([hidden])', { timeout: 60_000 });
    assert.match(await graph.locator('.gate-panel').innerText(), /Publish these release notes\?/);
    await shot(page, '05-human-gate');
    await graph.click('.gate-option[data-key="A"]');

    // 6. The run finishes: the trace lists every visit, the run directory says success.
    await graph.waitForSelector('tr[data-node="done"]', { timeout: 60_000 });
    await graph.waitForSelector('.gate-panel', { state: 'hidden' });
    await page.waitForSelector('.debug-toolbar', { state: 'hidden', timeout: 30_000 });
    const traceNodes = await graph.locator('tr[data-node]').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.node));
    assert.deepEqual(traceNodes, ['start', 'draft', 'review', 'publish', 'done']);
    const runsRoot = path.join(vscode.workspace, '.attractor-runs');
    const runs = fs.readdirSync(runsRoot);
    assert.deepEqual(runs.map((run) => run.split('-')[0]), ['human']);
    const checkpoint = JSON.parse(fs.readFileSync(path.join(runsRoot, runs[0]!, 'checkpoint.json'), 'utf8')) as { status: string };
    assert.equal(checkpoint.status, 'success');
    assert.equal(fs.readFileSync(path.join(vscode.workspace, 'published.md'), 'utf8'), '# 2.0\n- things\n');
    await shot(page, '06-run-finished');

    // 7. The Runs view lists the run with its status; opening it shows it in the graph view.
    await page.click('.pane-header:has-text("Attractor Runs")');
    const runRow = page.locator('.monaco-list-row:has-text("human_review")').filter({ hasText: 'succeeded · iteration 0' });
    await runRow.waitFor({ timeout: 30_000 });
    await runRow.click();
    await graph.waitForSelector('tr[data-node="done"]');
    await shot(page, '07-runs-view');

    // 7b. What did `publish` do to the files? Its trace row lists published.md; clicking it opens
    // VS Code's diff editor on the workspace before ↔ after that visit.
    await graph.click('tr[data-node="publish"]');
    const published = graph.locator('.visit-file-changes .file-change.added', { hasText: 'published.md' });
    await published.waitFor({ timeout: 30_000 });
    await published.click();
    await page.waitForSelector('.tab:has-text("published.md (publish, iteration 0")', { timeout: 30_000 });
    await page.waitForSelector('.monaco-diff-editor .modified-in-monaco-diff-editor .view-lines:has-text("# 2.0")', { timeout: 30_000 });
    await shot(page, '07b-visit-file-diff');
    // Closed again, so that step 8 finds the pipeline's editor rather than the diff's two.
    await page.click('.monaco-diff-editor .modified-in-monaco-diff-editor .view-lines');
    await runCommand(page, 'View: Close Editor');
    await page.waitForSelector('.monaco-diff-editor', { state: 'detached', timeout: 30_000 });

    // 8. The Run lens on a fan-out without max_parallel: attractor.maxParallel=1 runs its branches one at a time.
    await page.click('.monaco-editor .view-lines'); // the graph view had the focus (and would swallow Ctrl+P)
    await openFile(page, 'fan.dot', 'tripleoctagon');
    await clickRunLens(page, 'fan.dot', 'tripleoctagon');
    const fanRun = await waitFor(() => fs.readdirSync(runsRoot).find((run) => run.startsWith('fan-') && fs.existsSync(path.join(runsRoot, run, 'checkpoint.json')) && JSON.parse(fs.readFileSync(path.join(runsRoot, run, 'checkpoint.json'), 'utf8')).status === 'success'), 60_000);
    assert.ok(fanRun, 'the fan-out ran to success');
    assert.ok(!fs.existsSync(path.join(vscode.workspace, OVERLAPS_FILE)), 'attractor.maxParallel reached the engine: no two branches overlapped');

    const log = readAttractorLog(vscode.userDataDir);
    const activation = /activated in ([\d.]+) ms.*rss ([\d.]+) MB, heapUsed ([\d.]+) MB/.exec(log);
    assert.ok(activation, `no activation line in the Attractor log:\n${log}`);
    console.log(`  activation ${activation[1]} ms, extension host rss ${activation[2]} MB, heapUsed ${activation[3]} MB`);
    console.log('e2e: passed');
  } catch (error) {
    await page.screenshot({ path: path.join(shots, 'failure.png') }).catch(() => undefined);
    console.error(readAttractorLog(vscode.userDataDir));
    throw error;
  } finally {
    await vscode.stop();
  }
}

/** Restricted mode: lint still reports, the Run lens refuses, nothing is written. */
async function untrustedWorkspace(): Promise<void> {
  const vscode = await startCodeServer({ vsix, files: workspaceFiles(), trusted: false });
  const { page } = vscode;
  try {
    await openFile(page, 'human-review.dot', 'digraph');
    await page.keyboard.press('Control+Shift+M');
    await page.waitForSelector('.markers-panel .monaco-list-row:has-text("temprature")', { timeout: 60_000 });
    await clickRunLens(page, 'human-review.dot', 'human_review');
    // A toast can hide again under load before it is seen; the notification centre keeps it.
    await page.waitForSelector('.notifications-toasts:has-text("only in a trusted workspace")', { timeout: 60_000 }).catch(async () => {
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+Shift+N');
      await page.waitForSelector('.notifications-center:has-text("only in a trusted workspace")', { timeout: 10_000 });
    });
    assert.ok(!fs.existsSync(path.join(vscode.workspace, '.attractor-runs')), 'nothing ran');
    await shot(page, '08-untrusted-refuses-to-run');
  } catch (error) {
    await page.screenshot({ path: path.join(shots, 'failure.png') }).catch(() => undefined);
    throw error;
  } finally {
    await vscode.stop();
  }
}

/** An LLM node that writes a file through the tool loop, then one whose model never answers. */
const editorModelFiles = (): Record<string, string> => {
  const script: LmScript = {
    replies: [
      { text: 'Writing it.', toolCalls: [{ name: 'write_file', input: { path: 'hello.txt', content: 'hi\n' } }] },
      { toolCalls: [{ name: 'report_outcome', input: { status: 'success', notes: 'wrote hello.txt' } }] },
      { hang: true },
    ],
  };
  const pipeline = (name: string, prompt: string): string => `digraph ${name} {
  graph [llm_model="claude-sonnet-4-5"]
  start [shape=Mdiamond]
  done  [shape=Msquare]
  work  [prompt="${prompt}"]
  start -> work -> done
}
`;
  return { 'hello.dot': pipeline('hello', 'Write hello.txt saying hi.'), 'stuck.dot': pipeline('stuck', 'Think for a long time.'), 'attractor-scripted-lm.json': JSON.stringify(script, null, 2) };
};

interface LmLogEntry {
  readonly event: 'request' | 'cancelled';
  readonly tools?: readonly string[];
}

/**
 * LLM nodes on the editor's model, with no API key anywhere: the test-only extension registers a
 * chat model provider (vscode.lm.registerLanguageModelChatProvider) that answers from a script.
 */
async function editorModel(): Promise<void> {
  const vscode = await startCodeServer({ vsix, alsoInstall: [await packageScriptedLm()], files: editorModelFiles() });
  const { page } = vscode;
  const lmLog = (): LmLogEntry[] => {
    const file = path.join(vscode.workspace, 'attractor-scripted-lm.log.jsonl');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LmLogEntry) : [];
  };
  const runsRoot = path.join(vscode.workspace, '.attractor-runs');
  const finished = (prefix: string): { run: string; status: string } | undefined => {
    for (const run of fs.existsSync(runsRoot) ? fs.readdirSync(runsRoot) : []) {
      const checkpoint = path.join(runsRoot, run, 'checkpoint.json');
      if (!run.startsWith(prefix) || !fs.existsSync(checkpoint)) continue;
      const { status } = JSON.parse(fs.readFileSync(checkpoint, 'utf8')) as { status: string };
      if (status !== 'running') return { run, status };
    }
    return undefined;
  };
  try {
    // 1. Run: the node writes hello.txt through write_file and reports success on "Scripted Claude".
    await openFile(page, 'hello.dot', 'Write hello.txt');
    await page.keyboard.press('Control+Shift+M');
    await page.waitForSelector('.markers-panel', { timeout: 30_000 }); // the language server is up
    await page.click('.monaco-editor .view-lines');
    await clickRunLens(page, 'hello.dot', 'Write hello.txt');
    const graph = await frameWith(page, 'tr[data-node="done"]', 120_000);
    const hello = await waitFor(() => finished('hello'), 60_000);
    assert.equal(hello?.status, 'success', readAttractorLog(vscode.userDataDir));
    assert.equal(fs.readFileSync(path.join(vscode.workspace, 'hello.txt'), 'utf8'), 'hi\n');
    const traceNodes = await graph.locator('tr[data-node]').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.node));
    assert.deepEqual(traceNodes, ['start', 'work', 'done']);
    const requests = lmLog().filter((entry) => entry.event === 'request');
    assert.equal(requests.length, 2, 'two model turns: the write_file call, then report_outcome');
    assert.ok(['write_file', 'shell', 'report_outcome'].every((tool) => requests[0]?.tools?.includes(tool)), JSON.stringify(requests[0]));
    const status = JSON.parse(fs.readFileSync(path.join(runsRoot, hello!.run, 'work', 'status.json'), 'utf8')) as { is_explicit: boolean };
    assert.equal(status.is_explicit, true, 'the verdict came from report_outcome');
    await shot(page, '09-editor-model-run');

    // 2. A model that never answers: Stop run cancels the request.
    await page.click('.monaco-editor .view-lines');
    await openFile(page, 'stuck.dot', 'Think for a long time');
    await clickRunLens(page, 'stuck.dot', 'Think for a long time');
    assert.ok(await waitFor(() => (lmLog().filter((entry) => entry.event === 'request').length === 3 ? true : undefined), 60_000), 'the third request reached the model');
    await runCommand(page, 'Attractor: Stop run');
    assert.ok(await waitFor(() => (lmLog().some((entry) => entry.event === 'cancelled') ? true : undefined), 30_000), 'the model saw its request cancelled');
    // A cancelled run stays resumable (its checkpoint says running); VS Code says it was cancelled.
    await page.waitForSelector('.notifications-toasts:has-text("stuck.dot was cancelled")', { timeout: 30_000 }).catch(async () => {
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+Shift+N');
      await page.waitForSelector('.notifications-center:has-text("stuck.dot was cancelled")', { timeout: 10_000 });
    });
    await shot(page, '10-editor-model-cancelled');
  } catch (error) {
    await page.screenshot({ path: path.join(shots, 'failure.png') }).catch(() => undefined);
    console.error(readAttractorLog(vscode.userDataDir));
    throw error;
  } finally {
    await vscode.stop();
  }
}

main()
  .then(() => (process.exitCode ? undefined : untrustedWorkspace()))
  .then(() => {
    if (!process.exitCode) console.log('e2e (untrusted workspace): passed');
  })
  .then(() => (process.exitCode ? undefined : editorModel()))
  .then(() => {
    if (!process.exitCode) console.log('e2e (LLM nodes on the editor\'s model): passed');
  })
  .catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
