// The graph view on a graph too large to lay out whole, in headless Chromium through the harness
// that plays the extension (a file of its own: its layouts take most of a test file's time budget).
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import type { GraphStateMessage } from '../../host/protocol/webview';
import { generatePipeline } from './generated-pipeline';
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

function state(partial: Partial<GraphStateMessage>): GraphStateMessage {
  return { type: 'graphState', runStatus: 'running', iteration: 0, nodes: {}, takenEdges: [], ...partial };
}

test('a 5,000-node pipeline shows the neighbourhood of its start node after progress, and follows the active node and the selection', async () => {
  const view = await harness.open();
  // Records what the page says while it lays out, without racing it.
  await view.page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __seen: string[] }).__seen = seen;
    new MutationObserver(() => {
      const progress = document.querySelector('.layout-status:not([hidden]) .layout-progress:not([hidden])')?.textContent;
      if (progress) seen.push(progress);
      seen.push(`state:${document.body.dataset.renderState}`);
    }).observe(document.body, { attributes: true, subtree: true, childList: true, characterData: true });
  });
  await view.showDocument(generatePipeline(5000));
  assert.equal(await view.page.getAttribute('body', 'data-render-state'), 'rendered');
  assert.ok(await view.page.isHidden('.error-banner'));
  const seen = await view.page.evaluate(() => (window as unknown as { __seen: string[] }).__seen);
  assert.ok(seen.includes('state:laying-out'), 'the page marks the layout in progress');
  assert.ok(seen.some((text) => /^Laying out 300 nodes… \d+\.\d s$/.test(text)), `progress is shown while Graphviz works: ${JSON.stringify(seen.slice(0, 5))}`);
  assert.match((await view.page.textContent('.layout-status')) ?? '', /Showing the 300 nodes nearest to start of 5,000/);
  assert.equal(await view.page.locator('.graph-stage g.node').count(), 300);
  assert.ok((await view.page.locator('.graph-stage g.node.view-boundary').count()) > 0, 'nodes with edges to nodes not shown are marked');

  await view.send(state({ activeNode: 'n10', nodes: { start: { status: 'success', visits: 1, iteration: 0 }, n10: { status: 'running', visits: 1, iteration: 0 } }, takenEdges: [{ index: 0, status: 'success' }] }));
  await view.page.waitForSelector('[id="node:n10"].run-active');
  assert.ok((await view.classesOf('node:start')).includes('status-success'));
  assert.ok((await view.classesOf('edge:0')).includes('run-taken'));

  // The run moves far outside: the view lays out the neighbourhood of the new active node.
  await view.send(state({ activeNode: 'n4000', nodes: { start: { status: 'success', visits: 1, iteration: 0 }, n4000: { status: 'running', visits: 1, iteration: 0 } } }));
  await view.page.waitForSelector('[id="node:n4000"].run-active', { timeout: 60_000 });
  assert.equal(await view.page.locator('[id="node:start"]').count(), 0);
  assert.match((await view.page.textContent('.layout-status')) ?? '', /nearest to n4000 of 5,000/);

  // The editor's cursor selects a node outside too: the view follows, and the selection traces its edges.
  await view.send({ type: 'selectNode', nodeId: 'n2500' });
  await view.page.waitForSelector('[id="node:n2500"].selected', { timeout: 60_000 });
  assert.ok(await view.page.locator('.graph-stage g.edge.edge-out').count() > 0);
  assert.deepEqual(view.pageErrors, []);
  assert.deepEqual(await view.cspViolations(), [], 'the layout worker starts under the strict CSP');
});
