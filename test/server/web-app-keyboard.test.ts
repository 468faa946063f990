// The browser app of `attractor serve` used with the keyboard alone, in headless Chromium against a
// real server process: a pipeline started from the list's form, the run reached from the list, its gate
// answered, a visit's changed file opened as a diff and closed again, a re-run's question dismissed —
// Tab, the arrows, Enter and Escape only, with the focus visible at every stop.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../browser';
import { call, gated } from './serve-harness';
import { started, workspaceWith } from './served-in-tests';

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser.close();
});

/** How the focused element shows it is focused: its outline, or else its box shadow. */
async function focusIndicator(page: Page): Promise<{ readonly element: string; readonly shown: boolean }> {
  return page.evaluate(() => {
    const focused = document.activeElement;
    if (!(focused instanceof HTMLElement) || focused === document.body) return { element: 'body', shown: false };
    const style = getComputedStyle(focused);
    const outlined = style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0;
    return { element: `${focused.tagName.toLowerCase()} ${focused.textContent?.trim().slice(0, 40) ?? ''}`, shown: outlined || style.boxShadow !== 'none' };
  });
}

/** Presses Tab until the focused element matches `selector` (at most `limit` presses); asserts the focus is visible there. */
async function tabTo(page: Page, selector: string, limit = 40): Promise<void> {
  for (let press = 0; press < limit; press++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((wanted) => document.activeElement?.matches(wanted) ?? false, selector)) {
      const indicator = await focusIndicator(page);
      assert.ok(indicator.shown, `the focus on ${indicator.element} is visible`);
      return;
    }
  }
  const indicator = await focusIndicator(page);
  assert.fail(`${limit} presses of Tab never reached ${selector} (the focus ended on ${indicator.element})`);
}

async function waitingAtGate(url: string, id: string): Promise<void> {
  while ((await call(`${url}/pipelines/${id}`)).body.pendingQuestions === 0) await new Promise((resolve) => setTimeout(resolve, 100));
}

describe('attractor serve: the browser app with the keyboard alone', () => {
  it('reaches a run from the list, answers its gate, and opens and closes a visit\'s diff with Tab, Enter and Escape', async () => {
    const dir = workspaceWith('attractor-web-keys-', { 'gated.dot': gated });
    const { url } = await started(dir);
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`error: ${error.message}`));

    // The form of the runs list starts a pipeline of the server's roots.
    await page.goto(`${url}/`);
    await page.locator('#source option', { hasText: 'gated.dot' }).waitFor({ state: 'attached' });
    await tabTo(page, '#source');
    await page.keyboard.press('Home');
    for (let press = 0; press < 10 && (await page.locator('#source').evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent)) !== 'gated.dot'; press++) await page.keyboard.press('ArrowDown');
    await tabTo(page, '.submit-form button[type="submit"]', 1);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\?run=/);
    const id = new URL(page.url()).searchParams.get('run') ?? '';
    await waitingAtGate(url, id);

    // From the runs list to the run.
    await page.goto(`${url}/`);
    await page.locator(`tr[data-run="${id}"]`).waitFor();
    await tabTo(page, `tr[data-run="${id}"] a.run-link`);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.body.dataset.renderState === 'rendered');
    await page.locator('.gate-panel:not([hidden])').waitFor();

    // The gate opens with the focus on its first answer; the one wanted is reached by Tab.
    assert.equal(await page.evaluate(() => document.activeElement?.matches('.gate-panel button.gate-option') ?? false), true, 'the gate takes the focus');
    if (!(await page.evaluate(() => /\[Y\] Yes/.test(document.activeElement?.textContent ?? '')))) await tabTo(page, '.gate-panel button.gate-option', 5);
    assert.match(await page.evaluate(() => document.activeElement?.textContent ?? ''), /\[Y\] Yes/);
    assert.ok((await focusIndicator(page)).shown, 'the focused answer shows its focus');
    await page.keyboard.press('Enter');
    await page.locator('.run-state[data-status="success"]').waitFor();

    // The build visit's row, then its changed file: each opened with Enter.
    await tabTo(page, '.trace-panel tbody tr[data-node="build"]');
    await page.keyboard.press('Enter');
    await tabTo(page, '.visit-file-changes button.file-change');
    await page.keyboard.press('Enter');
    const diff = page.locator('.file-diff:not([hidden])');
    await diff.locator('.diff-line.added', { hasText: 'built' }).waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.file-diff[hidden]').waitFor({ state: 'attached' });
    assert.equal(await page.evaluate(() => document.activeElement?.matches('.visit-file-changes button.file-change') ?? false), true, 'closing the diff gives the focus back to the file it was opened from');


    // Re-running from the gate over a file changed since asks first; Escape says no, and nothing changes.
    fs.writeFileSync(path.join(dir, 'built.txt'), 'mine\n');
    await tabTo(page, '.trace-panel tbody tr[data-node="gate"]');
    await page.keyboard.press('Enter');
    await tabTo(page, 'button.rerun-from');
    await page.keyboard.press('Enter');
    await page.locator('.rerun-ask:not([hidden])').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.closest('.rerun-ask') !== null), true, 'the question takes the focus');
    await page.keyboard.press('Escape');
    await page.locator('.rerun-ask[hidden]').waitFor({ state: 'attached' });
    assert.equal(await page.evaluate(() => document.activeElement?.matches('button.rerun-from') ?? false), true, 'dismissing the question gives the focus back to the button that asked it');
    assert.equal(fs.readFileSync(path.join(dir, 'built.txt'), 'utf8'), 'mine\n');
    assert.equal(((await call(`${url}/pipelines`)).body.pipelines as unknown[]).length, 1, 'no branch run was started');

    assert.deepEqual(problems, []);
    await context.close();
  });
});
