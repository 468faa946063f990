// The graph webview in headless Chromium, driven through its message protocol by a harness that
// plays the extension. Nothing here stubs the webview itself: it is the shipped bundle and CSS.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import type { GraphStateMessage, TraceEntry } from '../../host/protocol/webview';
import { loopWithGate, projectedRun } from './engine-run';
import { generatePipeline } from './generated-pipeline';
import { startHarness, type Harness, type WebviewPage } from './harness';

const example = fs.readFileSync(path.join(__dirname, 'fixtures/convergence-review.dot'), 'utf8');
let harness: Harness;

before(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness?.closePages();
});
after(async () => {
  // Unset when before() failed: closing is then the harness's own job.
  await harness?.close();
});

async function openExample(): Promise<WebviewPage> {
  const view = await harness.open();
  await view.showDocument(example);
  return view;
}

function state(partial: Partial<GraphStateMessage>): GraphStateMessage {
  return { type: 'graphState', runStatus: 'running', iteration: 0, nodes: {}, takenEdges: [], ...partial };
}

const trace: TraceEntry[] = [
  { iteration: 0, node_id: 'start', status: 'success', duration_ms: 1, ts: '2026-11-29T10:00:00Z', is_explicit: true },
  { iteration: 0, node_id: 'plan', status: 'success', duration_ms: 5200, ts: '2026-11-29T10:00:05Z', is_explicit: true, attempt: 1, input_tokens: 1500, output_tokens: 334, cost_usd: 0.0123, llm_requests: 2 },
  { iteration: 0, node_id: 'implement', status: 'success', duration_ms: 42000, ts: '2026-11-29T10:00:47Z', is_explicit: true, attempt: 1, input_tokens: 9000, output_tokens: 120, cost_usd: 0.081, llm_requests: 3 },
  { iteration: 0, node_id: 'test_gate', status: 'fail', duration_ms: 3100, ts: '2026-11-29T10:00:50Z', is_explicit: true, preferred_label: 'gate_fail' },
  { iteration: 1, node_id: 'implement', status: 'success', duration_ms: 21000, ts: '2026-11-29T10:01:11Z', is_explicit: true, attempt: 2, input_tokens: 5000, output_tokens: 400, cost_usd: 'unknown', llm_requests: 1, failure_reason: 'attempt 1: no status.json', forced_edge: { from: 'implement', to: 'test_gate' } },
  { iteration: 1, node_id: 'test_gate', status: 'success', duration_ms: 2900, ts: '2026-11-29T10:01:14Z', is_explicit: true, preferred_label: 'gate_pass' },
];

test('renders the example with a stable id per node and edge, and clicking a node reveals its declaration', async () => {
  const view = await openExample();
  const ids = await view.page.evaluate(() => Array.from(document.querySelectorAll('.graph-stage g.node, .graph-stage g.edge')).map((g) => g.id));
  assert.deepEqual(ids.filter((id) => id.startsWith('node:')).sort(), ['node:done', 'node:implement', 'node:plan', 'node:review', 'node:start', 'node:test_gate']);
  assert.deepEqual(ids.filter((id) => id.startsWith('edge:')).sort(), ['edge:0', 'edge:1', 'edge:2', 'edge:3', 'edge:4', 'edge:5', 'edge:6']);
  assert.equal(await view.page.textContent('[id="node:plan"] text'), 'Plan the change');
  assert.ok((await view.classesOf('node:test_gate')).includes('handler-tool'));

  await view.page.click('[id="node:plan"]');
  const reveal = await view.waitForPost((m) => m.type === 'revealNode');
  const planLine = example.split('\n').findIndex((line) => line.trimStart().startsWith('plan '));
  assert.deepEqual(reveal, { type: 'revealNode', uri: 'file:///work/pipeline.dot', nodeId: 'plan', range: reveal.type === 'revealNode' ? reveal.range : undefined });
  assert.equal(reveal.type === 'revealNode' && reveal.range.start.line, planLine);

  await view.page.click('[id="edge:4"] text');
  const edge = await view.waitForPost((m) => m.type === 'revealEdge');
  assert.equal(edge.type === 'revealEdge' && edge.edgeIndex, 4);
  assert.deepEqual(await view.cspViolations(), [], 'the page (WASM Graphviz included) runs under the strict CSP');
  assert.deepEqual(view.pageErrors, []);
});

test('a graphState sequence toggles status classes, badges and the current edge on the same SVG', async () => {
  const view = await openExample();
  await view.page.evaluate(() => {
    (document.querySelector('.graph-stage svg') as unknown as { __marker: boolean }).__marker = true;
  });

  await view.send(state({ activeNode: 'plan', currentEdge: 0, nodes: { start: { status: 'success', visits: 1, iteration: 0 }, plan: { status: 'running', visits: 1, iteration: 0 } }, takenEdges: [{ index: 0, status: 'success' }] }));
  await view.page.waitForSelector('[id="node:plan"].run-active');
  assert.deepEqual((await view.classesOf('node:plan')).filter((c) => c.startsWith('run-') || c.startsWith('status-')).sort(), ['run-active', 'run-visited', 'status-running']);
  assert.ok((await view.classesOf('node:start')).includes('status-success'));
  assert.ok((await view.classesOf('edge:0')).includes('run-current'));
  assert.ok((await view.classesOf('edge:0')).includes('run-taken'));

  await view.send(
    state({
      iteration: 1,
      activeNode: 'test_gate',
      currentEdge: 2,
      nodes: {
        start: { status: 'success', visits: 1, iteration: 0 },
        plan: { status: 'success', visits: 1, iteration: 0 },
        implement: { status: 'success', visits: 2, iteration: 1, lastAttempt: 2 },
        test_gate: { status: 'running', visits: 2, iteration: 1 },
      },
      takenEdges: [
        { index: 0, status: 'success' },
        { index: 1, status: 'success' },
        { index: 2, status: 'success' },
        { index: 4, status: 'fail' },
      ],
    }),
  );
  await view.page.waitForSelector('[id="node:test_gate"].run-active');
  const plan = await view.classesOf('node:plan');
  assert.ok(!plan.includes('run-active') && !plan.includes('status-running') && plan.includes('status-success'), `plan: ${plan.join(' ')}`);
  assert.ok((await view.classesOf('edge:4')).includes('status-fail'));
  assert.ok(!(await view.classesOf('edge:0')).includes('run-current'));
  assert.ok((await view.classesOf('edge:2')).includes('run-current'));
  assert.equal(await view.page.textContent('[id="node:implement"] .run-badge text'), '2× i1 a2');
  assert.equal(await view.page.locator('[id="node:implement"] .run-badge').count(), 1);
  assert.equal(await view.page.locator('[id="node:review"] .run-badge').count(), 0);
  assert.equal(await view.page.evaluate(() => (document.querySelector('.graph-stage svg') as unknown as { __marker?: boolean }).__marker), true, 'no re-layout: the SVG element is the same one');
  assert.match((await view.page.textContent('.run-status')) ?? '', /running · iteration 1 · test_gate/);

  // A re-render of the document (an edit) keeps the run state on the new SVG.
  await view.showDocument(example.replace('Plan the change', 'Plan it'));
  assert.equal(await view.page.textContent('[id="node:plan"] text'), 'Plan it');
  assert.ok((await view.classesOf('node:test_gate')).includes('run-active'));
  assert.equal(await view.page.textContent('[id="node:implement"] .run-badge text'), '2× i1 a2');
});

test('trace entries fill the table, the timeline and the descent chart; a row selects its visit', async () => {
  const view = await openExample();
  await view.send({ type: 'traceEntries', entries: trace.slice(0, 4), replace: true });
  await view.send({ type: 'traceEntries', entries: trace.slice(4), replace: false });
  await view.page.waitForFunction(() => document.querySelectorAll('.trace-table tbody tr').length === 6);
  const cells = await view.page.$$eval('.trace-table tbody tr:nth-child(2) td', (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(cells, ['0', 'plan', 'success', '5.20 s', '1', 'yes', '', '1,834', '$0.01']);
  assert.equal(await view.page.locator('.descent-chart .chart-duration').count(), 2, 'one duration bar per iteration');
  const gates = await view.page.$$eval('.descent-chart .chart-gate', (dots) => dots.map((d) => d.getAttribute('class')));
  assert.deepEqual(gates, ['chart-gate status-fail', 'chart-gate status-success'], 'the goal gate test_gate decides each iteration');
  assert.equal(await view.page.locator('.timeline .timeline-visit').count(), 6);
  assert.match((await view.page.textContent('.trace-summary')) ?? '', /6 visits · 2 iterations · total 15,500 in \/ 854 out tokens, cost unknown, 6 model request\(s\), 7 attempt\(s\)/);

  assert.equal(await view.page.textContent('.trace-table tbody tr:nth-child(5) td:nth-child(7)'), ' forced → test_gate');
  assert.equal(await view.page.getAttribute('.trace-table tbody tr:nth-child(5) .status-pill', 'title'), 'attempt 1: no status.json');
  await view.page.selectOption('.trace-header select', 'implement');
  await view.page.waitForFunction(() => document.querySelectorAll('.trace-table tbody tr').length === 2);

  await view.clearPosted();
  await view.page.click('.trace-table tbody tr[data-iteration="1"]');
  const request = await view.waitForPost((m) => m.type === 'requestVisit');
  assert.deepEqual(request, { type: 'requestVisit', iteration: 1, nodeId: 'implement' });
  const reveal = await view.waitForPost((m) => m.type === 'revealNode');
  assert.equal(reveal.type === 'revealNode' && reveal.nodeId, 'implement');
  assert.ok((await view.classesOf('node:implement')).includes('selected'));

  await view.send({ type: 'visitArtifacts', iteration: 1, nodeId: 'implement', prompt: 'Follow **plan.md**', status: '{"status":"success"}' });
  await view.page.waitForSelector('.visit-artifacts pre');
  const files = await view.page.$$eval('.visit-artifacts details:not(.visit-file-changes)', (ds) => ds.map((d) => [d.querySelector('summary')?.textContent, d.querySelector('pre')?.textContent]));
  assert.deepEqual(files, [
    ['prompt.md', 'Follow **plan.md**'],
    ['response.md (none)', ''],
    ['status.json', '{"status":"success"}'],
  ]);
  assert.equal(await view.page.textContent('.visit-file-changes summary'), 'workspace files (not snapshotted)');

  const artifact = { id: 'report-0123', name: 'report', sizeBytes: 150_000, path: 'artifacts/report-0123.json', preview: '"<img src=x onerror=alert(1)>…' };
  await view.send({ type: 'visitArtifacts', iteration: 1, nodeId: 'implement', artifacts: [artifact] });
  await view.page.waitForSelector('.visit-artifact');
  assert.deepEqual(await view.page.$$eval('.visit-artifact', (ds) => ds.map((d) => [d.querySelector('summary')?.textContent, d.querySelector('pre')?.textContent])), [
    ['artifact report (146 KiB) — artifacts/report-0123.json', '"<img src=x onerror=alert(1)>…'],
  ]);
  assert.equal(await view.page.$$eval('.visit-artifact img', (images) => images.length), 0, 'a preview is text, never HTML');
});

test("a visit's workspace file changes are listed, and each opens its before ↔ after diff", async () => {
  const view = await openExample();
  await view.send({ type: 'traceEntries', entries: trace, replace: true });
  await view.page.waitForFunction(() => document.querySelectorAll('.trace-table tbody tr').length === 6);
  await view.page.click('.trace-table tbody tr[data-node="implement"][data-iteration="0"]');
  await view.waitForPost((m) => m.type === 'requestVisit');
  const fileChanges = [
    { kind: 'added', path: 'src/<b>new</b>.ts' },
    { kind: 'changed', path: 'notes.txt' },
    { kind: 'deleted', path: 'gone.txt' },
  ] as const;
  await view.send({ type: 'visitArtifacts', iteration: 0, nodeId: 'implement', fileChanges: [...fileChanges] });
  await view.page.waitForSelector('.visit-file-changes li');
  assert.equal(await view.page.textContent('.visit-file-changes summary'), 'workspace files (3 changed)');
  const listed = await view.page.$$eval('.visit-file-changes .file-change', (buttons) => buttons.map((b) => [b.className, b.textContent]));
  assert.deepEqual(listed, [
    ['file-change added', 'A src/<b>new</b>.ts'],
    ['file-change changed', 'M notes.txt'],
    ['file-change deleted', 'D gone.txt'],
  ]);

  await view.clearPosted();
  await view.page.click('.visit-file-changes .file-change.changed');
  assert.deepEqual(await view.waitForPost((m) => m.type === 'openFileDiff'), { type: 'openFileDiff', iteration: 0, nodeId: 'implement', path: 'notes.txt' });

  await view.send({ type: 'visitArtifacts', iteration: 0, nodeId: 'implement', fileChanges: [] });
  await view.page.waitForFunction(() => document.querySelector('.visit-file-changes summary')?.textContent === 'workspace files (none changed)');
});

test('"Re-run from here" is offered on a visit of a run that ended, and asks the extension for a branch run from before that visit', async () => {
  const view = await openExample();
  await view.send(state({ runStatus: 'running' }));
  await view.send({ type: 'traceEntries', entries: trace, replace: true });
  await view.page.waitForFunction(() => document.querySelectorAll('.trace-table tbody tr').length === 6);
  await view.page.click('.trace-table tbody tr[data-node="implement"][data-iteration="1"]');
  await view.waitForPost((m) => m.type === 'requestVisit');
  await view.send({ type: 'visitArtifacts', iteration: 1, nodeId: 'implement', fileChanges: [] });
  await view.page.waitForSelector('.visit-artifacts h3');
  assert.equal(await view.page.isVisible('.visit-artifacts .rerun-from'), false, 'a live run is not re-run from one of its visits');

  await view.send(state({ runStatus: 'failed', iteration: 1 }));
  await view.page.waitForSelector('.visit-artifacts .rerun-from', { state: 'visible' });
  assert.equal(await view.page.textContent('.visit-artifacts .rerun-from'), 'Re-run from here');
  await view.clearPosted();
  await view.page.click('.visit-artifacts .rerun-from');
  assert.deepEqual(await view.waitForPost((m) => m.type === 'rerunFrom'), { type: 'rerunFrom', iteration: 1, nodeId: 'implement' });

  // A run that starts again (the branch itself) takes the offer back.
  await view.send(state({ runStatus: 'running' }));
  await view.page.waitForSelector('.visit-artifacts .rerun-from', { state: 'hidden' });
  assert.deepEqual(view.pageErrors, []);
});

test('two visits of a node in one iteration are two rows, each selecting its own files; the summary counts the rounds', async () => {
  const view = await openExample();
  const visit = (node_id: string, ts: string, extra: Partial<TraceEntry> = {}): TraceEntry => ({ iteration: 0, node_id, status: 'success', duration_ms: 1, ts, is_explicit: true, ...extra });
  await view.send({
    type: 'traceEntries',
    entries: [visit('start', '2026-11-29T10:00:00Z'), visit('implement', '2026-11-29T10:00:01Z'), visit('test_gate', '2026-11-29T10:00:02Z'), visit('implement', '2026-11-29T10:00:03Z', { visit: 2 }), visit('test_gate', '2026-11-29T10:00:04Z', { visit: 2 })],
    replace: true,
  });
  await view.page.waitForFunction(() => document.querySelectorAll('.trace-table tbody tr').length === 5);
  assert.match((await view.page.textContent('.trace-summary')) ?? '', /5 visits · 1 iteration \(2 rounds\)/);
  assert.equal(await view.page.textContent('.trace-table tbody tr:nth-child(4) td:nth-child(2)'), 'implement #2');

  await view.clearPosted();
  await view.page.click('.trace-table tbody tr:nth-child(4)');
  assert.deepEqual(await view.waitForPost((m) => m.type === 'requestVisit'), { type: 'requestVisit', iteration: 0, nodeId: 'implement', visit: 2 });
  assert.deepEqual(await view.page.$$eval('.trace-table tbody tr.selected', (rows) => rows.map((row) => (row as HTMLTableRowElement).rowIndex)), [4], 'only the clicked visit is selected');
  await view.send({ type: 'visitArtifacts', iteration: 0, nodeId: 'implement', prompt: 'first visit' });
  await view.send({ type: 'visitArtifacts', iteration: 0, nodeId: 'implement', visit: 2, prompt: 'second visit' });
  await view.page.waitForSelector('.visit-artifacts pre');
  assert.equal(await view.page.textContent('.visit-artifacts h3'), 'implement · iteration 0 · visit 2');
  assert.equal(await view.page.textContent('.visit-artifacts pre'), 'second visit', "the first visit's files are not shown for the second");

  await view.clearPosted();
  await view.page.click('.trace-table tbody tr:nth-child(2)');
  assert.deepEqual(await view.waitForPost((m) => m.type === 'requestVisit'), { type: 'requestVisit', iteration: 0, nodeId: 'implement' });
});

/** Whether every toolbar control lies inside the panel, the run status is shown whole, and on how many rows. */
function toolbarLayout(view: WebviewPage): Promise<{ inside: boolean; statusWhole: boolean; rows: number }> {
  return view.page.evaluate(() => {
    const boxes = Array.from(document.querySelector('.toolbar')!.children).map((child) => child.getBoundingClientRect()).filter((b) => b.height > 0);
    const status = document.querySelector('.run-status')!;
    // A control starts a new row when it lies wholly below every control before it.
    let rows = 0;
    let bottom = -Infinity;
    for (const box of [...boxes].sort((a, b) => a.top - b.top)) {
      if (box.top >= bottom) rows++;
      bottom = Math.max(bottom, box.bottom);
    }
    return {
      inside: boxes.every((b) => b.left >= 0 && b.right <= window.innerWidth),
      statusWhole: status.textContent !== '' && status.scrollWidth <= status.clientWidth,
      rows,
    };
  });
}

test('beside the editor (500 px) the toolbar and the run status are whole and in view, and the trace one scroll area whose table shows every column', async () => {
  const view = await harness.open({ width: 500, height: 800 });
  await view.showDocument(example);
  await view.send(state({ runStatus: 'paused', iteration: 12, activeNode: 'review' }));
  const entries = trace.map((entry) => ({ ...entry, input_tokens: 12_000, output_tokens: 345, cost_usd: 0.125, llm_requests: 1 }));
  await view.send({ type: 'traceEntries', entries, replace: true });
  await view.page.click('.trace-table tbody tr:nth-child(2)');
  await view.send({ type: 'visitArtifacts', iteration: 0, nodeId: 'plan', prompt: 'Plan.\n'.repeat(30), response: 'Done.' });
  await view.page.waitForSelector('.visit-artifacts pre');
  // Plain expressions only: tsx names arrow functions bound to consts with a helper the page lacks.
  const layout = await view.page.evaluate(() => {
    const content = document.querySelector('.trace-content')!.getBoundingClientRect();
    const element = document.querySelector('.trace-content')!;
    return {
      headers: Array.from(document.querySelectorAll('.trace-table th')).map((th) => ({ text: th.textContent, inside: th.getBoundingClientRect().left >= content.left && th.getBoundingClientRect().right <= content.right })),
      overflowsSideways: element.scrollWidth > element.clientWidth,
      scrollers: Array.from(document.querySelectorAll('.trace-panel *'))
        .filter((candidate) => ['auto', 'scroll'].includes(getComputedStyle(candidate).overflowY) && candidate.scrollHeight > candidate.clientHeight && candidate.tagName !== 'PRE')
        .map((candidate) => candidate.className),
      filesBelowTable: document.querySelector('.visit-artifacts')!.getBoundingClientRect().top >= document.querySelector('.trace-table')!.getBoundingClientRect().bottom,
    };
  });
  assert.deepEqual(await toolbarLayout(view), { inside: true, statusWhole: true, rows: 2 }, 'the status takes a line of its own');
  await view.page.setViewportSize({ width: 300, height: 800 });
  assert.deepEqual({ ...(await toolbarLayout(view)), rows: 'any' }, { inside: true, statusWhole: true, rows: 'any' }, 'narrower still, the controls wrap instead of running off');
  await view.page.setViewportSize({ width: 1000, height: 800 });
  assert.deepEqual(await toolbarLayout(view), { inside: true, statusWhole: true, rows: 1 }, 'one row where there is room');
  assert.deepEqual(layout.headers.filter((h) => !h.inside).map((h) => h.text), [], 'every column, status included, is in view');
  assert.equal(layout.overflowsSideways, false);
  assert.deepEqual(layout.scrollers, ['trace-content'], 'one scroll area for the table, the files and the charts');
  assert.ok(layout.filesBelowTable, "the selected visit's files follow the table");
});

test('yes/no and confirmation gates (canonical §6.2) say what they ask; a declined confirmation says the node fails', async () => {
  const view = await openExample();
  await view.send({ type: 'humanGate', gateId: 'c1', nodeId: 'review', question: 'Publish?', freeform: false, questionType: 'confirmation', options: [{ key: 'Y', label: 'Yes', to: 'done' }, { key: 'N', label: 'No', to: '' }] });
  await view.page.waitForSelector('.gate-panel:not([hidden])');
  assert.equal(await view.page.textContent('.gate-kind'), 'Confirm to go on; No fails this step.');
  assert.equal(await view.page.getAttribute('.gate-options', 'aria-label'), 'Confirm');
  assert.deepEqual(await view.page.$$eval('.gate-option', (buttons) => buttons.map((b) => [b.textContent, b.getAttribute('title')])), [['[Y] Yes', 'Go to done'], ['[N] No', 'The node fails']]);
  await view.page.keyboard.press('n');
  assert.deepEqual(await view.waitForPost((m) => m.type === 'answerGate'), { type: 'answerGate', gateId: 'c1', answer: { kind: 'option', choice: 'N' } });
  await view.send({ type: 'humanGateClosed', gateId: 'c1' });
  await view.send({ type: 'humanGate', gateId: 'y1', question: 'Deploy?', freeform: false, questionType: 'yes_no', options: [{ key: 'Y', label: '[Y] Yes', to: 'ship' }, { key: 'N', label: '[N] No', to: 'keep' }] });
  await view.page.waitForSelector('.gate-options.gate-yes_no');
  assert.equal(await view.page.textContent('.gate-kind'), 'Answer yes or no.');
});

test('a human gate round-trips an answer by button, by accelerator key and as free text', async () => {
  const view = await openExample();
  const gate = {
    type: 'humanGate',
    gateId: 'g1',
    nodeId: 'review',
    question: 'Ship it?',
    freeform: true,
    options: [
      { key: 'Y', label: '[Y] Yes', to: 'done' },
      { key: 'N', label: 'No, rework', to: 'implement' },
    ],
  };
  await view.send(gate);
  await view.page.waitForSelector('.gate-panel:not([hidden])');
  assert.equal(await view.page.textContent('#gate-question'), 'Ship it?');
  assert.deepEqual(await view.page.$$eval('.gate-option', (buttons) => buttons.map((b) => b.textContent)), ['[Y] Yes', '[N] No, rework'], 'each key shown once');
  assert.equal(await view.page.evaluate(() => document.activeElement?.getAttribute('data-key')), 'Y', 'focus moves to the first option');
  assert.equal(await view.page.getAttribute('.gate-option[data-key="N"]', 'aria-keyshortcuts'), 'N');
  await view.page.click('.gate-option[data-key="N"]');
  assert.deepEqual(await view.waitForPost((m) => m.type === 'answerGate'), { type: 'answerGate', gateId: 'g1', answer: { kind: 'option', choice: 'N' } });
  await view.page.keyboard.press('y');
  assert.equal((await view.posted()).filter((m) => m.type === 'answerGate').length, 1, 'one answer per gate');
  await view.send({ type: 'humanGateClosed', gateId: 'g1' });
  await view.page.waitForSelector('.gate-panel', { state: 'hidden' });

  await view.clearPosted();
  await view.send({ ...gate, gateId: 'g2' });
  await view.page.waitForSelector('.gate-panel:not([hidden])');
  await view.page.keyboard.press('y');
  assert.deepEqual(await view.waitForPost((m) => m.type === 'answerGate'), { type: 'answerGate', gateId: 'g2', answer: { kind: 'option', choice: 'Y' } });
  await view.send({ type: 'humanGateClosed', gateId: 'g2' });

  await view.clearPosted();
  await view.send({ ...gate, gateId: 'g3', defaultChoice: 'Yes', timeoutMs: 30_000 });
  await view.page.waitForSelector('.gate-panel:not([hidden])');
  assert.equal(await view.page.textContent('.gate-default'), 'Without an answer, “Yes” is chosen after 30 s.');
  await view.page.fill('.gate-freeform textarea', 'Yes, but rename the function');
  await view.page.keyboard.press('Control+Enter');
  assert.deepEqual(await view.waitForPost((m) => m.type === 'answerGate'), { type: 'answerGate', gateId: 'g3', answer: { kind: 'freeform', text: 'Yes, but rename the function' } });
  await view.send({ type: 'humanGateClosed', gateId: 'g3' });

  // Attachments (ledger §19): the extension picks the files, the answer carries them.
  await view.clearPosted();
  await view.send({ ...gate, gateId: 'g4' });
  await view.page.waitForSelector('.gate-panel:not([hidden])');
  await view.page.click('.gate-attach');
  assert.deepEqual(await view.waitForPost((m) => m.type === 'pickAttachments'), { type: 'pickAttachments', gateId: 'g4' });
  await view.send({ type: 'gateAttachments', gateId: 'g4', files: ['/ws/notes.md', '/ws/log.txt'] });
  await view.page.waitForSelector('.gate-attachments li:nth-child(2)');
  assert.equal(await view.page.textContent('.gate-attachments'), 'notes.mdlog.txt');
  await view.page.click('.gate-option[data-key="Y"]');
  assert.deepEqual(await view.waitForPost((m) => m.type === 'answerGate'), { type: 'answerGate', gateId: 'g4', answer: { kind: 'option', choice: 'Y', attachments: ['/ws/notes.md', '/ws/log.txt'] } });
});

test('labels, questions and artifacts holding markup stay text: no script runs, no element appears', async () => {
  const view = await harness.open();
  const script = '<script>window.__pwned = 1</script>';
  const image = '<img src=x onerror="window.__pwned = 2">';
  const hostile = `digraph x {
    start [shape=Mdiamond, label="${script}"]
    evil [label="${image.replaceAll('"', '\\"')}", prompt="${script}"]
    exit [shape=Msquare, label="\\\\N \\\\G ${image.replaceAll('"', '\\"')}"]
    start -> evil [label="${script}"]
    evil -> exit
  }`;
  await view.showDocument(hostile);
  assert.equal(await view.page.getAttribute('body', 'data-render-state'), 'rendered');
  assert.equal(await view.page.textContent('[id="node:start"] text'), script);
  assert.equal(await view.page.textContent('[id="node:evil"] text'), image);
  assert.equal(await view.page.textContent('[id="edge:0"] text'), script);
  await view.send({ type: 'humanGate', gateId: 'x', question: image, freeform: false, options: [{ key: 'A', label: script, to: 'exit' }] });
  await view.send({ type: 'traceEntries', replace: true, entries: [{ iteration: 0, node_id: 'evil', status: 'success', duration_ms: 1, ts: 't', is_explicit: false, preferred_label: image }] });
  await view.page.waitForSelector('.trace-table tbody tr');
  await view.page.click('.trace-table tbody tr');
  await view.send({ type: 'visitArtifacts', iteration: 0, nodeId: 'evil', prompt: script, response: image, fileChanges: [{ kind: 'added', path: image }] });
  await view.page.waitForSelector('.visit-artifacts pre');
  assert.equal(await view.page.textContent('#gate-question'), image);
  assert.equal(await view.page.textContent('.visit-artifacts details:nth-of-type(3) pre'), image);
  assert.equal(await view.page.textContent('.visit-file-changes .file-change'), `A ${image}`);
  await view.page.waitForTimeout(200);
  assert.equal(await view.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined, 'no injected script ran');
  assert.equal(await view.page.locator('img:not(.minimap img)').count(), 0, 'no <img> element was created from text');
  assert.equal(await view.page.locator('body script').count(), 2, 'only the stub and the webview script');
  assert.equal(await view.page.locator('.graph-stage :is(script, foreignObject)').count(), 0);

  // Second line of defence: even markup injected on purpose cannot run under the page's CSP.
  await view.page.evaluate(() => {
    document.body.insertAdjacentHTML('beforeend', '<img src="data:," onerror="window.__pwned = 3"><script>window.__pwned = 4</script>');
    const script = document.createElement('script');
    script.textContent = 'window.__pwned = 5';
    document.body.append(script);
  });
  await view.page.waitForFunction(() => (window as unknown as { __cspViolations: string[] }).__cspViolations.length >= 2);
  assert.equal(await view.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  assert.ok((await view.cspViolations()).every((violation) => violation.startsWith('script-src')));
});

test('a 500-node pipeline renders with a minimap', async () => {
  const view = await harness.open();
  await view.showDocument(generatePipeline(500));
  assert.equal(await view.page.getAttribute('body', 'data-render-state'), 'rendered');
  assert.equal(await view.page.locator('.graph-stage g.node').count(), 500);
  assert.ok(await view.page.isVisible('.minimap'));
});

test('cluster subgraphs are drawn as labelled boxes around their nodes, under the theme colours', async () => {
  const view = await harness.open();
  await view.showDocument(`digraph g {
    start [shape=Mdiamond]
    done [shape=Msquare]
    subgraph cluster_loop { label="Fix loop"; implement [prompt="p"]; check [shape=parallelogram, tool_command="true"] }
    start -> implement -> check -> done
  }`);
  // No named helpers inside evaluate: the test transpiler would wrap them in a helper the page lacks.
  const box = await view.page.evaluate(() => {
    const cluster = document.querySelector('.graph-stage [id="cluster:cluster_loop"]');
    const polygon = cluster?.querySelector(':scope > polygon');
    const outer = polygon?.getBoundingClientRect();
    const inside = ['implement', 'check', 'start'].map((nodeId) => {
      const inner = document.querySelector(`[id="node:${nodeId}"]`)?.getBoundingClientRect();
      return !!outer && !!inner && inner.left >= outer.left && inner.right <= outer.right && inner.top >= outer.top && inner.bottom <= outer.bottom;
    });
    return { label: cluster?.querySelector(':scope > text')?.textContent, dash: polygon ? getComputedStyle(polygon).strokeDasharray : '', inside };
  });
  assert.deepEqual(box, { label: 'Fix loop', dash: '4px, 3px', inside: [true, true, false] });
  assert.deepEqual(view.pageErrors, []);
});

test('a document that does not parse keeps the last graph and shows a banner that reveals the error', async () => {
  const view = await openExample();
  await view.showDocument(example.replace('plan -> implement', 'plan -> -> implement'));
  assert.equal(await view.page.getAttribute('body', 'data-render-state'), 'error');
  assert.ok(await view.page.isVisible('.error-banner'));
  const line = example.split('\n').findIndex((text) => text.includes('plan -> implement'));
  assert.match((await view.page.textContent('.error-banner')) ?? '', new RegExp(`^Line ${line + 1}:\\d+ DOT syntax error: .* showing the last graph`));
  assert.equal(await view.page.locator('.graph-stage g.node').count(), 6, 'the last good graph stays');
  await view.clearPosted();
  await view.page.click('.error-banner button');
  const reveal = await view.waitForPost((m) => m.type === 'revealRange');
  assert.equal(reveal.type === 'revealRange' && reveal.range.start.line, line);

  await view.showDocument(example);
  assert.ok(await view.page.isHidden('.error-banner'));

  // A stale version that arrives late is ignored (given time to render, it renders nothing).
  const current = await view.page.getAttribute('body', 'data-rendered-version');
  await view.send({ type: 'document', uri: 'file:///work/pipeline.dot', version: 1, text: 'digraph stale { only_me }' });
  await view.page.waitForTimeout(500);
  assert.equal(await view.page.getAttribute('body', 'data-rendered-version'), current);
  assert.equal(await view.page.locator('[id="node:only_me"]').count(), 0);
});

test('malformed messages are rejected and reported without touching the view', async () => {
  const view = await openExample();
  await view.send(state({ activeNode: 'plan', nodes: { plan: { status: 'running', visits: 1, iteration: 0 } } }));
  await view.page.waitForSelector('[id="node:plan"].run-active');
  await view.clearPosted();
  const malformed = [
    'not an object',
    { type: 'launchMissiles' },
    { type: 'graphState', runStatus: 'running', iteration: 0, nodes: { plan: { status: 'exploded', visits: 1, iteration: 0 } }, takenEdges: [] },
    { type: 'graphState', runStatus: 'running', iteration: -1, nodes: {}, takenEdges: [] },
    { type: 'humanGate', gateId: 'g', question: 'q', freeform: 'yes', options: [] },
    { type: 'document', uri: 'file:///x.dot', version: 2 },
  ];
  for (const message of malformed) await view.send(message);
  await view.page.waitForFunction((n) => (window as unknown as { __posted: unknown[] }).__posted.length >= n, malformed.length);
  const errors = (await view.posted()).filter((m) => m.type === 'protocolError').map((m) => (m.type === 'protocolError' ? m.error : ''));
  assert.equal(errors.length, malformed.length);
  assert.match(errors[1] ?? '', /type: expected one of document, graphState/);
  assert.match(errors[2] ?? '', /nodes\.plan\.status: expected one of success/);
  assert.match(errors[5] ?? '', /text: expected a string/);
  assert.ok(await view.page.isVisible('.protocol-error'));
  assert.ok((await view.classesOf('node:plan')).includes('run-active'), 'the rejected messages changed nothing');
  assert.ok(await view.page.isHidden('.gate-panel'));
});

test('breakpoints toggle from the graph and render from the breakpoints message; selection and search highlight', async () => {
  const view = await openExample();
  await view.page.click('[id="node:implement"]', { button: 'right' });
  const toggle = await view.waitForPost((m) => m.type === 'toggleBreakpoint');
  assert.equal(toggle.type === 'toggleBreakpoint' && toggle.target.kind, 'node');
  assert.equal(toggle.type === 'toggleBreakpoint' && toggle.target.kind === 'node' && toggle.target.nodeId, 'implement');
  await view.clearPosted();
  await view.page.click('[id="edge:3"] text', { modifiers: ['Alt'] });
  const edgeToggle = await view.waitForPost((m) => m.type === 'toggleBreakpoint');
  assert.equal(edgeToggle.type === 'toggleBreakpoint' && edgeToggle.target.kind === 'edge' && edgeToggle.target.edgeIndex, 3);

  await view.send({ type: 'breakpoints', nodes: ['implement'], edges: [3] });
  await view.page.waitForSelector('[id="node:implement"] .breakpoint-marker');
  assert.equal(await view.page.locator('[id="edge:3"] .breakpoint-marker').count(), 1);
  await view.send({ type: 'breakpoints', nodes: [], edges: [3] });
  await view.page.waitForSelector('[id="node:implement"] .breakpoint-marker', { state: 'detached' });
  assert.ok(!(await view.classesOf('node:implement')).includes('has-breakpoint'));

  await view.send({ type: 'selectNode', nodeId: 'review' });
  await view.page.waitForSelector('[id="node:review"].selected');
  // The selection traces the node's edges: test_gate → review in, review → done and → implement out.
  assert.ok((await view.classesOf('edge:3')).includes('edge-in'));
  assert.ok((await view.classesOf('edge:5')).includes('edge-out') && (await view.classesOf('edge:6')).includes('edge-out'));
  assert.ok(!(await view.classesOf('edge:0')).some((c) => c.startsWith('edge-')));
  await view.send({ type: 'selectNode', nodeId: null });
  await view.page.waitForSelector('[id="node:review"]:not(.selected)');

  await view.page.fill('.toolbar input[type="search"]', 'tool_command=pytest');
  await view.page.waitForSelector('[id="node:test_gate"].search-match');
  assert.equal(await view.page.locator('.graph-stage .search-match').count(), 1);
  await view.page.fill('.toolbar input[type="search"]', 'gate_');
  await view.page.waitForFunction(() => document.querySelectorAll('.graph-stage .search-match').length === 3, undefined, { timeout: 5000 });
});

test('export posts SVG markup and a PNG data URL; copy posts the SVG', async () => {
  const view = await openExample();
  await view.page.click('button[aria-label="Export as SVG"]');
  const svg = await view.waitForPost((m) => m.type === 'exportImage');
  assert.ok(svg.type === 'exportImage' && svg.format === 'svg' && svg.data.startsWith('<svg') && svg.data.includes('node:plan'));
  await view.clearPosted();
  await view.page.click('button[aria-label="Export as PNG"]');
  const png = await view.waitForPost((m) => m.type === 'exportImage');
  assert.ok(png.type === 'exportImage' && png.format === 'png' && png.data.startsWith('data:image/png;base64,'));
  await view.page.click('button[aria-label="Copy the graph as SVG"]');
  const copy = await view.waitForPost((m) => m.type === 'copy');
  assert.ok(copy.type === 'copy' && copy.text.startsWith('<svg'));
});

test('the layout engine follows the settings message', async () => {
  const view = await openExample();
  const before = await view.page.getAttribute('[id="node:done"] text', 'x');
  await view.send({ type: 'settings', layoutEngine: 'circo' });
  await view.page.waitForFunction((x) => document.querySelector('[id="node:done"] text')?.getAttribute('x') !== x, before);
  assert.equal(await view.page.inputValue('.toolbar select'), 'circo');
});

test('pan and zoom survive a re-render; Fit frames the graph again', async () => {
  const view = await openExample();
  const transform = () => view.page.evaluate(() => (document.querySelector('.graph-stage') as HTMLElement).style.transform);
  const fitted = await transform();
  await view.page.click('button[aria-label="Zoom in"]');
  await view.page.mouse.move(600, 300);
  await view.page.mouse.down();
  await view.page.mouse.move(500, 250, { steps: 4 });
  await view.page.mouse.up();
  const moved = await transform();
  assert.notEqual(moved, fitted);
  await view.showDocument(example.replace('label="Done"', 'label="Finished"'));
  assert.equal(await view.page.textContent('[id="node:done"] text'), 'Finished');
  assert.equal(await transform(), moved);
  await view.showDocument(example);
  await view.page.click('button[aria-label="Fit the graph to the view"]');
  assert.equal(await transform(), fitted);

  // Keys on the focused graph: + zooms in, 0 fits.
  await view.page.focus('.graph-view');
  await view.page.keyboard.press('+');
  assert.notEqual(await transform(), fitted);
  await view.page.keyboard.press('0');
  assert.equal(await transform(), fitted);

  // The view and the layout engine survive a reload of the webview (VS Code reloads hidden ones).
  await view.page.click('button[aria-label="Zoom in"]');
  await view.send({ type: 'settings', layoutEngine: 'neato' });
  await view.page.waitForFunction(() => sessionStorage.getItem('vscode-state')?.includes('neato'));
  const zoomed = await transform();
  await view.page.waitForFunction((t) => {
    const saved = JSON.parse(sessionStorage.getItem('vscode-state') ?? 'null') as { view: { k: number } } | null;
    return saved !== null && Math.abs(saved.view.k - Number(/scale\((.*)\)/.exec(t)?.[1])) < 1e-6;
  }, zoomed);
  await view.page.reload();
  await view.waitForPost((m) => m.type === 'ready');
  await view.showDocument(example);
  assert.equal(await transform(), zoomed);
  assert.equal(await view.page.inputValue('.toolbar select'), 'neato');
});

test('an edge is clickable along its whole path, not only on its label', async () => {
  const view = await openExample();
  // Beside the hairline (a few pixels off its centre line), still inside the wide hit area.
  const box = await view.page.locator('[id="edge:1"] path.edge-hit').evaluate((path) => {
    const rect = path.getBoundingClientRect();
    return { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
  });
  await view.page.mouse.click(box.x + 4, box.y);
  const reveal = await view.waitForPost((m) => m.type === 'revealEdge');
  assert.equal(reveal.type === 'revealEdge' && reveal.edgeIndex, 1);
});

test('a real engine run, projected by RunProjection, drives the graph, the gate panel and the trace', async () => {
  const { messages } = await projectedRun();
  const view = await harness.open();
  await view.showDocument(loopWithGate);
  const gateAt = messages.findIndex((m) => m.type === 'humanGate');
  for (const message of messages.slice(0, gateAt + 1)) await view.send(message);
  await view.page.waitForSelector('.gate-panel:not([hidden])');
  assert.equal(await view.page.textContent('#gate-question'), 'Ship it?');
  assert.ok((await view.classesOf('node:review')).includes('run-active'), 'the gate node is the active one while it waits');
  await view.page.click('.gate-option[data-key="Y"]');
  assert.deepEqual((await view.waitForPost((m) => m.type === 'answerGate')).type, 'answerGate');

  for (const message of messages.slice(gateAt + 1)) await view.send(message);
  await view.page.waitForSelector('.gate-panel', { state: 'hidden' });
  await view.page.waitForFunction(() => document.querySelector('.run-status')?.textContent?.startsWith('succeeded'));
  assert.ok((await view.classesOf('node:work')).includes('status-success'));
  assert.equal(await view.page.textContent('[id="node:work"] .run-badge text'), '2× i1');
  const loopEdge = await view.page.evaluate(() => document.querySelector('.graph-stage g.edge.loop-restart')?.id);
  assert.ok(loopEdge && (await view.classesOf(loopEdge)).includes('run-taken'));
  const traced = messages.flatMap((m) => (m.type === 'traceEntries' ? m.entries : [])).length;
  await view.page.waitForFunction((n) => document.querySelectorAll('.trace-table tbody tr').length === n, traced);
  assert.equal(await view.page.locator('.descent-chart .chart-duration').count(), 2);
});
