// End to end in a real VS Code (code-server) with the packaged .vsix, one scenario per fresh profile
// (`run-e2e.ts NAME…` runs only those named):
// - debug: an example with a lint warning in Problems, a breakpoint on a node (F9), F5 stopping there
//   with the node highlighted in the graph view, the human gate answered in the panel, the run's trace,
//   every line of it in the Debug Console, the Runs view, the diff of a file a node wrote;
// - walkthrough: the example the walkthrough opens, highlighted by the TextMate grammar, and its
//   gate asking the person once (in the graph view) when the walkthrough runs it;
// - debugging: a breakpoint on a continuation line, a gate answered in a quick pick with the graph
//   view closed, a run stopped at its gate and resumed with its whole history, two visits of a node;
// - untrusted: Restricted Mode lints but does not run;
// - editor-model: LLM nodes on the editor's own (scripted) chat model with no API key.
// Screenshots of each step go to docs/e2e/, numbered in the order the suite takes them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import { OVERLAPS_FILE, overlappingFanOut } from '../fixtures/overlapping-fan-out';
import { allowEditorModels, chooseFromContextMenu, clickRunLens, debugConsoleLines, frameWith, goToLine, inCodeServer, openFile, readAttractorLog, runCommand, runScenarios, type Scenarios, shot, waitFor, waitForNotification } from './code-server';
import type { LmScript } from './scripted-lm-extension/script';
import { packageScriptedLm } from './scripted-lm-vsix';

const repo = path.resolve(__dirname, '..', '..');
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

async function main(): Promise<void> {
  assert.ok(fs.existsSync(vsix), `${vsix} missing: run npm run package`);
  const files = workspaceFiles();
  const draftLine = files['human-review.dot']!.split('\n').findIndex((line) => line.includes('draft   [')) + 1;
  // One branch at a time: the fan-out in step 8 proves the setting reaches the engine.
  await inCodeServer('debug', { vsix, files, userSettings: { 'attractor.maxParallel': 1 } }, async (vscode) => {
    const { page } = vscode;
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
    await goToLine(page, draftLine);
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
    // Asked once: the graph view is in sight, so no quick pick asks as well.
    await page.waitForSelector('.statusbar-item:has-text("review waits for your answer")', { timeout: 30_000 });
    assert.equal(await gateQuickPick(page, 'Publish these release notes?').count(), 0, 'no quick pick asks a second time');
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

    // 6b. What the Debug Console shows (VS Code dropped a node's later lines when they came in output groups).
    const consoleLines = await debugConsoleLines(page);
    const said = consoleLines.join('\n');
    assert.deepEqual(consoleLines.filter((line) => line.startsWith('▶ ')).map((line) => line.split(' ')[1]), ['start', 'draft', 'review', 'publish', 'done'], said);
    assert.equal(consoleLines.filter((line) => line.startsWith('✓ success')).length, 5, said);
    assert.ok(consoleLines.some((line) => line.startsWith('human answered A')), said);
    assert.ok(consoleLines.some((line) => line.startsWith('run succeeded')), said);
    await shot(page, '07-debug-console');
    await runCommand(page, 'View: Toggle Maximized Panel');

    // 7. The Runs view lists the run with its status; opening it shows it in the graph view.
    await page.click('.pane-header:has-text("Attractor Runs")');
    const runRow = page.locator('.monaco-list-row:has-text("human_review")').filter({ hasText: 'succeeded · iteration 0' });
    await runRow.waitFor({ timeout: 30_000 });
    await runRow.click();
    await graph.waitForSelector('tr[data-node="done"]');
    await shot(page, '08-runs-view');

    // 7b. What did `publish` do to the files? Its trace row lists published.md; clicking it opens
    // VS Code's diff editor on the workspace before ↔ after that visit.
    await graph.click('tr[data-node="publish"]');
    const published = graph.locator('.visit-file-changes .file-change.added', { hasText: 'published.md' });
    await published.waitFor({ timeout: 30_000 });
    await published.click();
    // Titled by the file and the visit (publish@1: its first visit across the run).
    const diffTitle = 'published.md — publish@1 (before ↔ after)';
    const diffTab = `.tab:has-text("${diffTitle}")`;
    await page.waitForSelector(diffTab, { timeout: 30_000 });
    await page.waitForSelector('.monaco-diff-editor .modified-in-monaco-diff-editor .view-lines:has-text("# 2.0")', { timeout: 30_000 });
    await shot(page, '09-visit-file-diff');
    // Closed again, so that step 8 finds the pipeline's editor rather than the diff's two. Its tab is made
    // the active editor first: "Close Editor" closes the active group's editor, and the graph view (in the
    // other group) may still hold the focus after the click that opened the diff.
    await page.click(diffTab);
    await page.waitForSelector(`.tab.active:has-text("${diffTitle}")`, { timeout: 30_000 });
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
  });
}

/** Restricted mode: lint still reports, the Run lens refuses, nothing is written. */
async function untrustedWorkspace(): Promise<void> {
  await inCodeServer('untrusted', { vsix, files: workspaceFiles(), trusted: false }, async (vscode) => {
    const { page } = vscode;
    await openFile(page, 'human-review.dot', 'digraph');
    await page.keyboard.press('Control+Shift+M');
    await page.waitForSelector('.markers-panel .monaco-list-row:has-text("temprature")', { timeout: 60_000 });
    await clickRunLens(page, 'human-review.dot', 'human_review');
    await waitForNotification(page, 'only in a trusted workspace');
    assert.ok(!fs.existsSync(path.join(vscode.workspace, '.attractor-runs')), 'nothing ran');
    await shot(page, '16-untrusted-refuses-to-run');
  });
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
  await inCodeServer('editor-model', { vsix, alsoInstall: [await packageScriptedLm()], files: editorModelFiles() }, async (vscode) => {
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
    // 1. Run: the node writes hello.txt through write_file and reports success on "Scripted Claude".
    await openFile(page, 'hello.dot', 'Write hello.txt');
    await page.keyboard.press('Control+Shift+M');
    await page.waitForSelector('.markers-panel', { timeout: 30_000 }); // the language server is up
    await page.click('.monaco-editor .view-lines');
    await clickRunLens(page, 'hello.dot', 'Write hello.txt');
    await allowEditorModels(page); // asked once for the scripted provider; stuck.dot below is not asked again
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
    await shot(page, '17-editor-model-run');

    // 2. A model that never answers: Stop run cancels the request.
    await page.click('.monaco-editor .view-lines');
    await openFile(page, 'stuck.dot', 'Think for a long time');
    await clickRunLens(page, 'stuck.dot', 'Think for a long time');
    assert.ok(await waitFor(() => (lmLog().filter((entry) => entry.event === 'request').length === 3 ? true : undefined), 60_000), 'the third request reached the model');
    await runCommand(page, 'Attractor: Stop run');
    assert.ok(await waitFor(() => (lmLog().some((entry) => entry.event === 'cancelled') ? true : undefined), 30_000), 'the model saw its request cancelled');
    // A cancelled run stays resumable (its checkpoint says running); VS Code says it was cancelled.
    await waitForNotification(page, 'stuck.dot was cancelled');
    await shot(page, '18-editor-model-cancelled');
  });
}

const example = (name: string): string => fs.readFileSync(path.join(repo, 'examples', name), 'utf8');

/** The one-based line of the first line of `text` that holds `fragment`. */
function lineOf(text: string, fragment: string): number {
  const index = text.split('\n').findIndex((line) => line.includes(fragment));
  assert.ok(index >= 0, `no line holds ${fragment}: update the e2e fixture`);
  return index + 1;
}

/** The trace rows' nodes, top to bottom. */
async function traceNodes(graph: Frame): Promise<Array<string | undefined>> {
  return graph.locator('tr[data-node]').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.node));
}

/** The open quick pick that asks `question`. */
function gateQuickPick(page: Page, question: string): Locator {
  return page.locator(`.quick-input-widget:not([style*="display: none"]):has(input[placeholder="${question}"])`);
}

/**
 * The walkthrough as a new user takes it: *Open example pipeline* opens the bundled example,
 * highlighted by the TextMate grammar before any semantic token; *Run pipeline* runs it on the demo
 * backend, and its review gate asks the person once, in the graph view that is in sight.
 */
async function walkthrough(): Promise<void> {
  await inCodeServer('walkthrough', { vsix, files: { 'README.md': '# an empty project\n' } }, async (vscode) => {
    const { page } = vscode;
    // 1. Open example pipeline; Developer: Inspect Editor Tokens and Scopes on `digraph` names the grammar's scopes.
    await runCommand(page, 'Attractor: Open example pipeline');
    await page.waitForSelector('.monaco-editor .view-lines:has-text("digraph human_review")');
    await page.click('.monaco-editor .view-lines');
    await goToLine(page, lineOf(example('human-review.dot'), 'digraph human_review'));
    await runCommand(page, 'Developer: Inspect Editor Tokens and Scopes');
    const inspector = page.locator('.token-inspect-widget:has-text("textmate scopes")');
    await inspector.waitFor({ timeout: 30_000 });
    assert.match(await inspector.innerText(), /storage\.type\.dot\s+source\.dot\.attractor/, 'the TextMate grammar scopes the keyword');
    await shot(page, '10-textmate-scopes');
    await page.keyboard.press('Escape');

    // 2. Run pipeline: the demo backend answers the LLM node; the review gate asks the person once,
    // in the graph view in sight; the status bar only says that it waits.
    await runCommand(page, 'Attractor: Run pipeline');
    const graph = await frameWith(page, '.gate-panel:not([hidden])', 120_000);
    assert.match(await graph.locator('.gate-panel').innerText(), /Publish these release notes\?/);
    await page.waitForSelector('.statusbar-item:has-text("review waits for your answer")', { timeout: 30_000 });
    assert.equal(await gateQuickPick(page, 'Publish these release notes?').count(), 0, 'no quick pick asks a second time');
    await shot(page, '11-walkthrough-gate-asks');

    // 3. Answered in the graph view: the run publishes and succeeds.
    await graph.click('.gate-option[data-key="A"]');
    await page.waitForSelector('.statusbar-item:has-text("waits for your answer")', { state: 'detached', timeout: 30_000 });
    await graph.waitForSelector('tr[data-node="done"]', { timeout: 60_000 });
    assert.deepEqual(await traceNodes(graph), ['start', 'draft', 'review', 'publish', 'done']);
    await waitForNotification(page, 'human-review.dot succeeded');
  });
}

/**
 * Under F5: a breakpoint on a statement's continuation line stops at that statement's node; with the
 * graph view closed a gate asks in a quick pick; a run stopped at its gate resumes with its whole
 * history, and each visit of a node that ran twice keeps its own row and files.
 */
async function debugging(): Promise<void> {
  const files = { 'convergence-loop.dot': example('convergence-loop.dot'), 'convergence-loop.scripted.json': example('convergence-loop.scripted.json'), 'human-review.dot': example('human-review.dot'), 'human-review.scripted.json': example('human-review.scripted.json') };
  await inCodeServer('debugging', { vsix, files }, async (vscode) => {
    const { page } = vscode;
    const question = 'Publish these release notes?';
    // 1. F9 on `feedback_from=test_gate]`, the second line of `implement`'s statement: F5 stops at implement.
    await openFile(page, 'convergence-loop.dot', 'digraph');
    await page.click('.monaco-editor .view-lines');
    await goToLine(page, lineOf(files['convergence-loop.dot'], 'feedback_from=test_gate]'));
    await page.keyboard.press('F9');
    await page.waitForSelector('.monaco-editor .codicon-debug-breakpoint');
    await page.keyboard.press('F5');
    const convergenceGraph = await frameWith(page, '[id="node:implement"].selected', 60_000);
    assert.equal(await convergenceGraph.locator('[id="node:test_gate"].selected').count(), 0);
    await page.waitForSelector('.debug-call-stack .monaco-list-row:has-text("implement")', { timeout: 30_000 });
    await shot(page, '12-breakpoint-on-continuation-line');
    await page.click('.debug-toolbar .codicon-debug-stop');
    await page.waitForSelector('.debug-toolbar', { state: 'hidden', timeout: 30_000 });

    // 2. F5 on human-review.dot with the graph view closed: the gate asks in a quick pick; Revise there.
    await openFile(page, 'human-review.dot', 'digraph');
    await page.keyboard.press('F5');
    const graphTab = page.locator('.tab:has-text("Graph: human-review.dot")');
    await graphTab.waitFor({ timeout: 60_000 });
    // A middle click closes a tab; dispatched, since the gate's quick pick may already cover the tab.
    await graphTab.dispatchEvent('auxclick', { button: 1 });
    await graphTab.waitFor({ state: 'detached' });
    const pick = gateQuickPick(page, question);
    await pick.waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('.tab:has-text("Graph:")').count(), 0, 'the graph view stays closed');
    await shot(page, '13-gate-quick-pick-under-f5');
    await pick.locator('.monaco-list-row:has-text("Revise")').click();

    // 3. The reviewer's note, a second draft, the gate again: stop the session there.
    const runsRoot = path.join(vscode.workspace, '.attractor-runs');
    const visitsOnDisk = (): number => {
      const run = fs.existsSync(runsRoot) ? fs.readdirSync(runsRoot).find((name) => name.startsWith('human-review-')) : undefined;
      const trace = run && path.join(runsRoot, run, 'trace.jsonl');
      return trace && fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').trim().split('\n').length : 0;
    };
    assert.ok(await waitFor(() => (visitsOnDisk() === 5 ? true : undefined), 60_000), 'start, draft, review, note and the second draft ran');
    await pick.waitFor({ timeout: 60_000 });
    await page.locator('.debug-toolbar .codicon-debug-stop').dispatchEvent('click'); // the quick pick covers the toolbar
    await pick.waitFor({ state: 'detached', timeout: 30_000 });
    await page.waitForSelector('.debug-toolbar', { state: 'hidden', timeout: 30_000 });

    // 4. Only the graph view open (every editor closed), Resume run… from the Runs view's menu:
    // the run resumes without asking which run again, and the graph view stays where it was, once
    // (the debugger's editor opens over it), showing the whole history at the gate, which asks again.
    await runCommand(page, 'Attractor: Show graph');
    await page.locator('.tab:has-text("Graph: human-review.dot")').waitFor({ timeout: 30_000 });
    const editorTabs = page.locator('.tab:not(:has-text("Graph:"))');
    for (let left = await editorTabs.count(), tries = 0; left > 0 && tries < 10; left = await editorTabs.count(), tries++) {
      await editorTabs.first().dispatchEvent('auxclick', { button: 1 });
      await page.waitForFunction((before) => document.querySelectorAll('.tab:not([aria-label^="Graph:"])').length < before, left, { timeout: 10_000 }).catch(() => undefined);
    }
    assert.deepEqual(await page.locator('.tab').allInnerTexts(), ['Graph: human-review.dot']);
    await page.keyboard.press('Control+Shift+D');
    await page.waitForSelector('.pane-header:has-text("Attractor Runs")');
    const runRow = page.locator('.pane:has(.pane-header:has-text("Attractor Runs")) .monaco-list-row:has-text("human")').first();
    if (!(await runRow.isVisible())) await page.click('.pane-header:has-text("Attractor Runs")');
    await runRow.waitFor({ timeout: 30_000 });
    await chooseFromContextMenu(page, runRow, 'Resume run');
    await page.waitForSelector('.debug-call-stack .monaco-list-row:has-text("review")', { timeout: 60_000 });
    assert.equal(await page.locator('.quick-input-list .monaco-list-row:has-text("human-review-")').count(), 0, 'the run the menu was opened on resumes: no run picker');
    await page.waitForTimeout(2_000); // the stop opens the pipeline's editor (over the graph view, in the only group)
    assert.equal(await page.locator('.tab:has-text("Graph: human-review.dot")').count(), 1, 'one graph view, still open where it was');
    await page.locator('.tab:has-text("Graph: human-review.dot")').click();
    const graph = await frameWith(page, '.gate-panel:not([hidden])', 60_000);
    assert.deepEqual(await traceNodes(graph), ['start', 'draft', 'review', 'note', 'draft']);
    assert.match(await graph.locator('.trace-summary').innerText(), /5 visits/);
    await shot(page, '14-resume-shows-history');

    // 5. Approved in the graph view; both visits of `draft` keep their own row and their own files.
    await graph.click('.gate-option[data-key="A"]');
    await graph.waitForSelector('tr[data-node="done"]', { timeout: 60_000 });
    assert.deepEqual(await traceNodes(graph), ['start', 'draft', 'review', 'note', 'draft', 'review', 'publish', 'done']);
    for (const [visit, response] of [['0/1/draft', 'first draft'], ['0/2/draft', 'revised']] as const) {
      await graph.click(`tr[data-visit="${visit}"]`);
      await graph.waitForSelector(`.visit-artifacts pre:has-text("${response}")`, { timeout: 30_000 });
      assert.equal(await graph.locator('tr.selected').count(), 1, 'one row highlights');
    }
    await shot(page, '15-two-visits-own-files');
  });
}

/** The scenarios in the order they run; `run-e2e.ts NAME…` runs only those named. */
const scenarios: Scenarios = [
  ['debug', main, 'e2e: passed'],
  ['walkthrough', walkthrough, 'e2e (walkthrough): passed'],
  ['debugging', debugging, 'e2e (breakpoints, gates and resume under F5): passed'],
  ['untrusted', untrustedWorkspace, 'e2e (untrusted workspace): passed'],
  ['editor-model', editorModel, "e2e (LLM nodes on the editor's model): passed"],
];

runScenarios(scenarios);
