// Regenerates docs/graph-view-running.png and docs/trace-panel.png: the webview in headless
// Chromium, mid-run on the test fixture, driven through the harness exactly as the tests drive it.
// Usage: node --import tsx scripts/webview-screenshots.ts
import fs from 'node:fs';
import path from 'node:path';
import type { TraceEntry } from '../host/protocol/webview';
import { startHarness } from '../test/webview/harness';

const root = path.resolve(__dirname, '..');
const example = fs.readFileSync(path.join(root, 'test/webview/fixtures/convergence-review.dot'), 'utf8');

const visits: Array<[number, string, TraceEntry['status'], number, string?]> = [
  [0, 'start', 'success', 2],
  [0, 'plan', 'success', 8400],
  [0, 'implement', 'success', 61000],
  [0, 'test_gate', 'fail', 4100, 'gate_fail'],
  [1, 'implement', 'retry', 30000],
  [1, 'implement', 'success', 38000],
  [1, 'test_gate', 'fail', 3900, 'gate_fail'],
  [2, 'implement', 'success', 24000],
  [2, 'test_gate', 'success', 3600, 'gate_pass'],
];
let clock = Date.parse('2026-11-29T10:00:00Z');
const trace: TraceEntry[] = visits.map(([iteration, node_id, status, duration_ms, preferred_label], i) => {
  clock += duration_ms;
  const llm = node_id === 'plan' || node_id === 'implement';
  return {
    iteration,
    node_id,
    status,
    duration_ms,
    ts: new Date(clock).toISOString(),
    is_explicit: status !== 'retry',
    attempt: llm ? (status === 'success' && i === 5 ? 2 : 1) : 1,
    ...(preferred_label ? { preferred_label } : {}),
    ...(llm ? { tokens: Math.round(duration_ms / 7), cost: duration_ms / 900_000 } : {}),
  };
});

async function main(): Promise<void> {
  const harness = await startHarness();
  try {
    const view = await harness.open({ width: 1280, height: 860 });
    await view.page.emulateMedia({ reducedMotion: 'reduce' });
    await view.showDocument(example);
    await view.send({ type: 'breakpoints', nodes: ['review'], edges: [] });
    await view.send({
      type: 'graphState',
      runStatus: 'running',
      iteration: 2,
      activeNode: 'review',
      currentEdge: 3,
      nodes: {
        start: { status: 'success', visits: 1, iteration: 0 },
        plan: { status: 'success', visits: 1, iteration: 0 },
        implement: { status: 'success', visits: 3, iteration: 2, lastAttempt: 1 },
        test_gate: { status: 'success', visits: 3, iteration: 2 },
        review: { status: 'running', visits: 1, iteration: 2 },
      },
      takenEdges: [
        { index: 0, status: 'success' },
        { index: 1, status: 'success' },
        { index: 2, status: 'success' },
        { index: 4, status: 'fail', traversals: 2 },
        { index: 3, status: 'success' },
      ],
    });
    await view.send({ type: 'traceEntries', entries: trace, replace: true });
    await view.send({
      type: 'humanGate',
      gateId: 'review-1',
      nodeId: 'review',
      question: 'Tests pass after 3 iterations. Ship it?',
      freeform: true,
      options: [
        { key: 'Y', label: 'Yes', to: 'done' },
        { key: 'N', label: 'No, rework', to: 'implement' },
      ],
    });
    await view.page.waitForSelector('.gate-panel:not([hidden])');
    await view.page.click('.trace-table tbody tr:nth-child(8)');
    await view.send({
      type: 'visitArtifacts',
      iteration: 2,
      nodeId: 'implement',
      prompt: 'Follow plan.md.\n\nIteration 1 critique: count_words splits on spaces only; tabs and newlines fail test_whitespace.\n\nGoal: Implement count_words with passing tests',
      response: 'Switched to str.split() with no argument, which splits on any whitespace run.\nAdded a test for tabs and newlines.\n\nAll tests in test_count.py pass locally.',
      status: JSON.stringify({ outcome: 'success', preferred_label: '', suggested_next_ids: [], context_updates: {}, notes: '', is_explicit: true, attempt_count: 1 }, null, 2),
    });
    await view.page.waitForSelector('.visit-artifacts pre');
    await view.page.click('button[aria-label="Fit the graph to the view"]');
    await view.page.waitForTimeout(300);
    fs.mkdirSync(path.join(root, 'docs'), { recursive: true });
    await view.page.screenshot({ path: path.join(root, 'docs/graph-view-running.png') });
    await view.page.locator('.trace-panel').screenshot({ path: path.join(root, 'docs/trace-panel.png') });
    console.log('wrote docs/graph-view-running.png and docs/trace-panel.png');
  } finally {
    await harness.close();
  }
}

void main();
