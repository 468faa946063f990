// Regenerates docs/web-runs.png, docs/web-run-gate.png, docs/web-visit-diff.png and docs/web-phone.png: the browser app of
// a real `attractor serve` (the built dist/cli.js) in headless Chromium, with a finished run and one
// waiting at its gate. Usage: npm run build && node --import tsx scripts/web-screenshots.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchChromium } from '../test/browser';
import { call, gated, serve } from '../test/server/serve-harness';

const docs = path.join(__dirname, '..', 'docs');
const cli = path.join(__dirname, '..', 'dist', 'cli.js');

async function submitted(url: string): Promise<string> {
  const reply = await call(`${url}/pipelines`, { body: { path: 'gated.dot' } });
  if (reply.status !== 201) throw new Error(`POST /pipelines: ${JSON.stringify(reply.body)}`);
  const id = reply.body.id as string;
  while ((await call(`${url}/pipelines/${id}`)).body.pendingQuestions === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  return id;
}

async function main(): Promise<void> {
  if (!fs.existsSync(cli)) throw new Error('run npm run build first');
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-web-shots-')));
  fs.writeFileSync(path.join(dir, 'gated.dot'), gated);
  const server = await serve(dir);
  const browser = await launchChromium();
  try {
    const done = await submitted(server.url);
    await call(`${server.url}/pipelines/${done}/questions/${encodeURIComponent(((await call(`${server.url}/pipelines/${done}/questions`)).body.questions as { id: string }[])[0]?.id ?? '')}/answer`, { body: { choice: 'Y' } });
    const waiting = await submitted(server.url);
    const page = await browser.newPage({ viewport: { width: 1100, height: 640 } });
    await page.goto(`${server.url}/`);
    await page.locator(`tr[data-run="${waiting}"] .gates-waiting`).waitFor();
    await page.locator(`tr[data-run="${done}"] .status-success`).waitFor();
    await page.screenshot({ path: path.join(docs, 'web-runs.png') });
    await page.goto(`${server.url}/?run=${encodeURIComponent(done)}`);
    await page.locator('.trace-panel tbody tr[data-node="build"]').click();
    await page.locator('.visit-file-changes button.file-change', { hasText: 'built.txt' }).click();
    await page.locator('.file-diff .diff-line.added').waitFor();
    await page.screenshot({ path: path.join(docs, 'web-visit-diff.png') });
    await page.goto(`${server.url}/?run=${encodeURIComponent(waiting)}`);
    await page.waitForFunction(() => document.body.dataset.renderState === 'rendered');
    await page.locator('.gate-panel:not([hidden])').waitFor();
    await page.screenshot({ path: path.join(docs, 'web-run-gate.png') });
    await page.setViewportSize({ width: 390, height: 780 });
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(docs, 'web-phone.png') });
  } finally {
    await browser.close();
    await server.stop();
  }
}

void main();
