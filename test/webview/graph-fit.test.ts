// The graph view frames the whole graph by itself (on open, on edits, on resizes of its panel) until
// the person pans or zooms, in headless Chromium through the webview harness.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { startHarness, type Harness } from './harness';

const example = fs.readFileSync(path.join(__dirname, 'fixtures/convergence-review.dot'), 'utf8');
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

test('the graph frames itself on open and on every resize until the user pans or zooms; Fit follows again', async () => {
  const view = await harness.open({ width: 1200, height: 800 });
  // Whether the whole picture is in the graph area, centred, and fills it along one side (or is drawn
  // well above its natural size, where zooming stops): framed, not cropped nor shrunk to a dot.
  const framed = () =>
    view.page.evaluate(() => {
      const area = document.querySelector('.graph-view')!.getBoundingClientRect();
      const element = document.querySelector('.graph-stage svg')!;
      const svg = element.getBoundingClientRect();
      const inside = svg.left >= area.left - 1 && svg.right <= area.right + 1 && svg.top >= area.top - 1 && svg.bottom <= area.bottom + 1;
      const centred = Math.abs(svg.left + svg.right - area.left - area.right) < 2 && Math.abs(svg.top + svg.bottom - area.top - area.bottom) < 2;
      const fills = svg.width >= area.width * 0.9 || svg.height >= area.height * 0.9 || svg.width >= Number(element.getAttribute('width')) * 1.4;
      return inside && centred && fills;
    });
  const transform = () => view.page.evaluate(() => (document.querySelector('.graph-stage') as HTMLElement).style.transform);
  const settle = () => view.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

  // A panel opened beside the editor is laid out after its first document arrives: rendered while the
  // graph area had no size, the graph is framed once it gets one.
  const area = await view.page.$('.graph-area');
  await area!.evaluate((element) => ((element as HTMLElement).style.display = 'none'));
  await view.showDocument(example);
  await area!.evaluate((element) => ((element as HTMLElement).style.display = ''));
  await view.page.waitForFunction(() => (document.querySelector('.graph-stage') as HTMLElement).style.transform !== '');
  await settle();
  assert.ok(await framed(), 'framed once the area has a size');

  // Beside the editor at the default width, and back: framed each time.
  await view.page.setViewportSize({ width: 420, height: 700 });
  await settle();
  assert.ok(await framed(), 'framed at side-by-side width');
  await view.page.setViewportSize({ width: 1000, height: 900 });
  await settle();
  assert.ok(await framed(), 'framed when widened');

  // Once the user zooms, a resize keeps their view.
  await view.page.click('button[aria-label="Zoom in"]');
  const zoomed = await transform();
  await view.page.setViewportSize({ width: 600, height: 700 });
  await settle();
  assert.equal(await transform(), zoomed);

  // Fit frames the graph and follows it again, across a reload of the webview too.
  await view.page.click('button[aria-label="Fit the graph to the view"]');
  assert.ok(await framed());
  await view.page.setViewportSize({ width: 450, height: 800 });
  await settle();
  assert.ok(await framed(), 'following again after Fit');
  await view.page.waitForFunction(() => (JSON.parse(sessionStorage.getItem('vscode-state') ?? 'null') as { following?: boolean } | null)?.following === true);
  await view.page.reload();
  await view.waitForPost((m) => m.type === 'ready');
  await view.showDocument(example);
  await view.page.setViewportSize({ width: 700, height: 600 });
  await settle();
  assert.ok(await framed(), 'a reloaded view that followed the graph keeps following it');
});
