// The browser app of `attractor serve`, driven in headless Chromium against a real server process:
// the runs list, a run's live graph, its gate answered by a click (and with an uploaded attachment),
// the sign-in of a token server (and a cross-origin change refused), a restart and a resume from the
// page, and a phone's width.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../browser';
import { call, gated } from './serve-harness';
import { started, submit, workspaceWith } from './served-in-tests';

const TOKEN = 'a-token-long-enough-for-the-server-0123456789';

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser.close();
});

/** A page that records CSP violations and script errors, at `width`. */
async function openPage(width = 1100): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  const page = await context.newPage();
  page.once('close', () => void context.close());
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/.test(message.text())) problems.push(`csp: ${message.text()}`);
  });
  return { page, problems };
}

/** From the runs list to the run's page; its graph is drawn and its gate open. */
async function openRunAtGate(page: Page, url: string, id: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.locator(`tr[data-run="${id}"] a.run-link`).click();
  await page.waitForFunction(() => document.body.dataset.renderState === 'rendered');
  await page.locator('.gate-panel:not([hidden])').waitFor();
}

/** Settles once the run's gate waits for an answer. */
async function waitingAtGate(url: string, id: string, token?: string): Promise<void> {
  while ((await call(`${url}/pipelines/${id}`, token ? { token } : {})).body.pendingQuestions === 0) await new Promise((resolve) => setTimeout(resolve, 100));
}

describe('attractor serve: the browser app', () => {
  it('lists a submitted run, draws its graph, answers its gate by a click and sees it end; another with an attachment', async () => {
    const dir = workspaceWith('attractor-web-', { 'gated.dot': gated });
    const { url } = await started(dir);
    const id = await submit(url, { path: 'gated.dot' });
    await waitingAtGate(url, id);
    const { page, problems } = await openPage();
    await page.goto(`${url}/`);
    const row = page.locator(`tr[data-run="${id}"]`);
    await row.locator('.gates-waiting').waitFor();
    assert.match(await row.innerText(), /running[\s\S]*shipit[\s\S]*gate[\s\S]*1/);

    await openRunAtGate(page, url, id);
    assert.equal(await page.locator('[id="node:gate"].run-active, [id="node:gate"] .run-active, .node.run-active').count() > 0, true, 'the gate is the active node');
    assert.equal(await page.locator('#gate-question').innerText(), 'Ship it?');
    await page.getByRole('button', { name: /\[Y\] Yes/ }).click();
    await page.locator('.run-state[data-status="success"]').waitFor();
    await page.locator('.gate-panel[hidden]').waitFor({ state: 'attached' });

    // Another run: a file picked in the page goes up with the answer and reaches the gate as a path.
    const second = await submit(url, { path: 'gated.dot' });
    await waitingAtGate(url, second);
    await openRunAtGate(page, url, second);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Attach files…' }).click();
    await (await chooser).setFiles({ name: 'notes <b>.txt', mimeType: 'text/plain', buffer: Buffer.from('ship it\n') });
    await page.locator('.gate-attachments li').waitFor();
    assert.equal(await page.locator('.gate-attachments li').innerText(), 'notes <b>.txt', 'a name is shown as text, never parsed');
    await page.getByRole('button', { name: /\[Y\] Yes/ }).click();
    await page.locator('.run-state[data-status="success"]').waitFor();
    const context = (await call(`${url}/pipelines/${second}/context`)).body;
    const attached = context['human.gate.attachments'] as string[];
    assert.equal(attached.length, 1);
    assert.ok(attached[0]?.startsWith(path.join(dir, '.attractor-runs', second, 'attachments')), attached[0]);
    assert.equal(fs.readFileSync(attached[0] as string, 'utf8'), 'ship it\n');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('closes its gate when another client answers it (VS Code answers over the same route)', async () => {
    const dir = workspaceWith('attractor-web-elsewhere-', { 'gated.dot': gated });
    const { url } = await started(dir);
    const id = await submit(url, { path: 'gated.dot' });
    await waitingAtGate(url, id);
    const { page, problems } = await openPage();
    await openRunAtGate(page, url, id);
    const [question] = (await call(`${url}/pipelines/${id}/questions`)).body.questions as { id: string }[];
    const reply = await call(`${url}/pipelines/${id}/questions/${encodeURIComponent(question?.id ?? '')}/answer`, { body: { choice: 'Y' } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    await page.locator('.gate-panel[hidden]').waitFor({ state: 'attached' });
    await page.locator('.run-state[data-status="success"]').waitFor();
    await page.goto(`${url}/`);
    await page.locator(`tr[data-run="${id}"]`).waitFor();
    assert.equal(await page.locator(`tr[data-run="${id}"] .gates-waiting`).count(), 0, 'the runs list shows no gate waiting');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('asks a token server\'s token once and keeps a session cookie the page cannot read; a change from another origin is refused', async () => {
    const dir = workspaceWith('attractor-web-token-', { 'gated.dot': gated, token: `${TOKEN}\n` });
    const { url } = await started(dir, '--token-file', path.join(dir, 'token'));
    const id = await submit(url, { path: 'gated.dot' }, TOKEN);
    const { page, problems } = await openPage();
    await page.goto(`${url}/`);
    await page.getByLabel('Token').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/Not signed in: that is not this server's token/).waitFor();
    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator(`tr[data-run="${id}"]`).waitFor();
    const [cookie] = await page.context().cookies(url);
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Strict');
    assert.ok(!cookie?.value.includes(TOKEN), 'the cookie holds a session id, not the token');
    assert.equal(await page.evaluate(() => document.cookie), '', 'no script of the page reads the session');
    // Signed in, the page acts: it opens the run and sees its gate.
    await waitingAtGate(url, id, TOKEN);
    await openRunAtGate(page, url, id);

    // A page of another origin on the same site (another port: the SameSite=Strict cookie goes along) cannot act.
    const other = http.createServer((_request, response) => response.end('<!DOCTYPE html><title>other</title>'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const otherPage = await page.context().newPage();
      await otherPage.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      await otherPage.evaluate((target) => fetch(target, { method: 'POST', credentials: 'include', mode: 'no-cors' }).then(() => undefined, () => undefined), `${url}/pipelines/${id}/cancel`);
      await otherPage.close();
    } finally {
      other.close();
    }
    assert.equal((await call(`${url}/pipelines/${id}`, { token: TOKEN })).body.status, 'running', 'the cross-origin cancel did nothing');
    const cookieHeader = `${cookie?.name}=${cookie?.value}`;
    const forged = await call(`${url}/pipelines/${id}/cancel`, { method: 'POST', headers: { cookie: cookieHeader, origin: 'http://evil.example' } });
    assert.equal(forged.status, 403, JSON.stringify(forged.body));
    assert.equal((await call(`${url}/pipelines`, { headers: { cookie: 'attractor_session=guessed' } })).status, 401);
    // The page itself still acts: its answer ends the run.
    await page.getByRole('button', { name: /\[Y\] Yes/ }).click();
    await page.locator('.run-state[data-status="success"]').waitFor();
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('keeps a sign-in over a restart with the same token, and ends every sign-in when the token changes', async () => {
    const dir = workspaceWith('attractor-web-signed-', { 'gated.dot': gated, token: `${TOKEN}\n` });
    const first = await started(dir, '--token-file', path.join(dir, 'token'));
    const id = await submit(first.url, { path: 'gated.dot' }, TOKEN);
    const { page, problems } = await openPage();
    await page.goto(`${first.url}/`);
    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator(`tr[data-run="${id}"]`).waitFor();
    await first.stop();

    const second = await started(dir, '--token-file', path.join(dir, 'token'));
    await page.goto(`${second.url}/`);
    await page.locator(`tr[data-run="${id}"]`).waitFor();
    assert.equal(await page.getByLabel('Token').count(), 0, 'the restarted server did not ask again');
    await second.stop();

    fs.writeFileSync(path.join(dir, 'token'), `${TOKEN}-rotated\n`);
    const third = await started(dir, '--token-file', path.join(dir, 'token'));
    await page.goto(`${third.url}/`);
    await page.getByLabel('Token').waitFor();
    const [cookie] = await page.context().cookies(third.url);
    assert.equal((await call(`${third.url}/pipelines`, { headers: { cookie: `${cookie?.name}=${cookie?.value}` } })).status, 401, 'the old sign-in is refused');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('finds a run again after the server restarts, and resumes it from the page', async () => {
    const dir = workspaceWith('attractor-web-restart-', { 'gated.dot': gated });
    const first = await started(dir);
    const id = await submit(first.url, { path: 'gated.dot' });
    await waitingAtGate(first.url, id);
    await first.kill();
    const { url } = await started(dir);
    const { page, problems } = await openPage();
    await page.goto(`${url}/`);
    await page.locator(`tr[data-run="${id}"] .run-status-badge`, { hasText: 'interrupted' }).waitFor();
    await page.locator(`tr[data-run="${id}"] a.run-link`).click();
    await page.waitForFunction(() => document.body.dataset.renderState === 'rendered');
    await page.locator('.trace-panel tbody tr').nth(1).waitFor();
    await page.locator('.run-state[data-status="interrupted"]').waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.gate-panel:not([hidden])').waitFor();
    await page.getByRole('button', { name: /\[Y\] Yes/ }).click();
    await page.locator('.run-state[data-status="success"]').waitFor();
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('shows a visit\'s changed file as a diff, and re-runs the run from a visit (asking before files changed since are discarded)', async () => {
    const dir = workspaceWith('attractor-web-travel-', { 'gated.dot': gated });
    const { url } = await started(dir);
    const id = await submit(url, { path: 'gated.dot' });
    await waitingAtGate(url, id);
    const { page, problems } = await openPage();
    await openRunAtGate(page, url, id);
    await page.getByRole('button', { name: /\[Y\] Yes/ }).click();
    await page.locator('.run-state[data-status="success"]').waitFor();

    // The build visit wrote built.txt: its file opens as the diff of that visit, drawn as text.
    await page.locator('.trace-panel tbody tr[data-node="build"]').click();
    await page.locator('.visit-file-changes button.file-change', { hasText: 'built.txt' }).click();
    const diff = page.locator('.file-diff:not([hidden])');
    await diff.locator('.diff-line.added', { hasText: 'built' }).waitFor();
    assert.match(await diff.locator('.file-diff-title').innerText(), /built\.txt.*build/);
    await diff.getByRole('button', { name: 'Close' }).click();
    await page.locator('.file-diff[hidden]').waitFor({ state: 'attached' });

    // A file changed since the run ended: re-running asks first, lists it, and goes on only when told to.
    fs.writeFileSync(path.join(dir, 'built.txt'), 'mine <b>\n');
    await page.locator('.trace-panel tbody tr[data-node="gate"]').click();
    await page.getByRole('button', { name: 'Re-run from here' }).click();
    const ask = page.locator('.rerun-ask:not([hidden])');
    await ask.waitFor();
    assert.match(await ask.innerText(), /1 change\(s\) the run did not make[\s\S]*M built\.txt/);
    assert.equal(fs.readFileSync(path.join(dir, 'built.txt'), 'utf8'), 'mine <b>\n', 'nothing is changed before the answer');
    await ask.getByRole('button', { name: 'Restore anyway' }).click();

    // The branch run's own page: it waits at the gate again, and ends once answered.
    await page.waitForURL(new RegExp(`\\?run=${id}\\.branch-1`));
    await page.locator('.gate-panel:not([hidden])').waitFor();
    assert.equal(fs.readFileSync(path.join(dir, 'built.txt'), 'utf8'), 'built\n', 'the working directory is as it was before the gate');
    await page.getByRole('button', { name: /\[Y\] Yes/ }).click();
    await page.locator('.run-state[data-status="success"]').waitFor();
    await page.getByRole('link', { name: '← Runs' }).click();
    await page.locator(`tr[data-run="${id}.branch-1"] .run-status-badge`, { hasText: 'success' }).waitFor();
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('is usable at a phone\'s width: nothing wider than the screen, the gate answered by touch', async () => {
    const dir = workspaceWith('attractor-web-phone-', { 'gated.dot': gated });
    const { url } = await started(dir);
    const id = await submit(url, { path: 'gated.dot' });
    await waitingAtGate(url, id);
    const { page, problems } = await openPage(390);
    await page.goto(`${url}/`);
    await page.locator(`tr[data-run="${id}"]`).waitFor();
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the runs list fits the width');
    await openRunAtGate(page, url, id);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the run page fits the width');
    const yes = page.getByRole('button', { name: /\[Y\] Yes/ });
    const box = await yes.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, 'the answer is on screen');
    await yes.click();
    await page.locator('.run-state[data-status="success"]').waitFor();
    assert.deepEqual(problems, []);
    await page.close();
  });
});
