// The graph view on a graph under the whole-graph limit that Graphviz cannot lay out in time, in
// headless Chromium through the harness that plays the extension: the layout ends at its deadline,
// or when the user cancels it, and the view shows the neighbourhood of the start node and says why.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { LAYOUT_DEADLINE_MS } from '../../webview/layout-client';
import { generateTangledPipeline } from './generated-pipeline';
import { startHarness, type Harness } from './harness';

let harness: Harness;

before(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness?.closePages();
});
after(async () => {
  await harness?.close();
});

// 1,400 nodes (under the 2,000 of a whole layout): a 700-stage chain, then a tangle Graphviz needs minutes for.
const TANGLED = generateTangledPipeline(1400, 700);

test('a whole-graph layout that misses the deadline gives way to the neighbourhood of the start node, and says why', async () => {
  const view = await harness.open();
  const started = Date.now();
  await view.showDocument(TANGLED);
  const elapsed = Date.now() - started;
  assert.equal(await view.page.getAttribute('body', 'data-render-state'), 'rendered');
  assert.ok(await view.page.isHidden('.error-banner'));
  assert.ok(elapsed >= LAYOUT_DEADLINE_MS, `the whole graph had its ${LAYOUT_DEADLINE_MS} ms (${elapsed} ms)`);
  assert.match(
    (await view.page.textContent('.layout-status')) ?? '',
    new RegExp(`Showing the 300 nodes nearest to start of 1,400 \\(Graphviz did not lay out the whole graph within ${LAYOUT_DEADLINE_MS / 1000} s\\)`),
  );
  assert.ok(await view.page.isHidden('.layout-cancel'), 'Cancel is shown only while laying out');
  assert.equal(await view.page.locator('.graph-stage g.node').count(), 300);
  assert.equal(await view.page.locator('[id="node:start"]').count(), 1);

  // The run moves outside: the view follows, without trying the whole graph again.
  await view.page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __seen: string[] }).__seen = seen;
    new MutationObserver(() => seen.push(document.querySelector('.layout-progress')?.textContent ?? '')).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await view.send({ type: 'graphState', runStatus: 'running', iteration: 0, activeNode: 'n500', nodes: { n500: { status: 'running', visits: 1, iteration: 0 } }, takenEdges: [] });
  await view.page.waitForSelector('[id="node:n500"].run-active');
  await view.send({ type: 'selectNode', nodeId: 'n100' });
  await view.page.waitForFunction(() => /nearest to n100 of/.test(document.querySelector('.layout-status')?.textContent ?? ''), undefined, { timeout: 60_000 });
  const seen = await view.page.evaluate(() => (window as unknown as { __seen: string[] }).__seen);
  assert.ok(seen.some((text) => text.startsWith('Laying out 300 nodes')), JSON.stringify(seen.slice(0, 5)));
  assert.ok(!seen.some((text) => text.startsWith('Laying out 1,400 nodes')), 'the whole graph is not laid out again');
  assert.deepEqual(view.pageErrors, []);
});

test('Cancel while the whole graph lays out ends that layout: the view shows the neighbourhood, and says so', async () => {
  const view = await harness.open();
  await view.send({ type: 'document', uri: 'file:///work/pipeline.dot', version: 1, text: TANGLED });
  await view.page.waitForSelector('.layout-status:not([hidden]) .layout-progress:not([hidden])');
  assert.match((await view.page.textContent('.layout-progress')) ?? '', /^Laying out 1,400 nodes… \d+\.\d s$/);
  await view.page.click('.layout-cancel');
  await view.page.waitForSelector('body[data-rendered-version="1"]', { timeout: 60_000 });
  assert.equal(await view.page.getAttribute('body', 'data-render-state'), 'rendered');
  assert.match((await view.page.textContent('.layout-status')) ?? '', /Showing the 300 nodes nearest to start of 1,400 \(the layout of the whole graph was cancelled\)/);
  assert.equal(await view.page.locator('.graph-stage g.node').count(), 300);
  assert.deepEqual(view.pageErrors, []);
});
