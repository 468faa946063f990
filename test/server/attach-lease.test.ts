import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { bundledCli } from '../test-bundle';
import { call, heldPipeline, readEvents } from './serve-harness';
import { runServed, started, submit, workspaceWith } from './served-in-tests';

type Summary = Record<string, unknown> & { held: { nodeId: string } | null; status: string; attachLease: { periodMs: number; expiresAt: string | null } };

const summary = async (url: string, id: string): Promise<Summary> => (await call(`${url}/pipelines/${id}`)).body as Summary;

async function until(url: string, id: string, accept: (s: Summary) => boolean): Promise<Summary> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const current = await summary(url, id);
    if (accept(current)) return current;
    if (Date.now() > deadline) throw new Error(`pipeline ${id} never got there: ${JSON.stringify(current)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A debugger that is there: `POST …/lease` every `everyMs` until stopped. */
function keepRenewing(url: string, id: string, everyMs: number): { stop: () => Promise<void> } {
  let renewing = true;
  const loop = (async () => {
    while (renewing) {
      const reply = await call(`${url}/pipelines/${id}/lease`, { body: {} });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    stop: async () => {
      renewing = false;
      await loop;
    },
  };
}

describe('attractor serve: the lease of an attached debugger (EXTENSIONS AT2)', () => {
  it('holds while the debugger renews; once it stops, drops its breakpoints, lets the run go and says so in the events', async () => {
    const dir = workspaceWith('attractor-lease-', { 'held.dot': heldPipeline });
    const { url } = await started(dir, '--attach-lease', '0.5');
    const id = await submit(url, { path: 'held.dot' });
    const fresh = await until(url, id, (s) => s.pendingQuestions === 1);
    assert.deepEqual(fresh.attachLease, { periodMs: 500, expiresAt: null }, 'no debugger yet');

    const set = await call(`${url}/pipelines/${id}/breakpoints`, { method: 'PUT', body: { nodes: ['build'] } });
    assert.equal(set.status, 200);
    assert.ok(Date.parse(String((set.body as Summary).attachLease.expiresAt)) > Date.now(), 'setting breakpoints takes the lease');
    const debuggerThere = keepRenewing(url, id, 100);
    const [question] = (await call(`${url}/pipelines/${id}/questions`)).body.questions as { id: string }[];
    await call(`${url}/pipelines/${id}/questions/${encodeURIComponent(question?.id ?? '')}/answer`, { body: { choice: 'G' } });
    await until(url, id, (s) => s.held?.nodeId === 'build');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal((await summary(url, id)).held?.nodeId, 'build', 'renewed, the hold outlives three lease periods');
    assert.ok(!fs.existsSync(path.join(dir, 'built.txt')));

    await debuggerThere.stop();
    const over = await until(url, id, (s) => s.status !== 'running');
    assert.equal(over.status, 'success', 'unrenewed, the run went on to its end');
    assert.deepEqual(over.breakpoints, { nodes: [], edges: [] });
    assert.ok(fs.existsSync(path.join(dir, 'checked.txt')));
    const events = await readEvents(`${url}/pipelines/${id}/events`);
    const lapsed = events.filter((event) => event.type === 'lease:lapsed');
    assert.equal(lapsed.length, 1, 'the lapse is recorded once');
    assert.equal(lapsed[0]?.data.periodMs, 500);
    assert.deepEqual(lapsed[0]?.data.droppedBreakpoints, { nodes: ['build'], edges: [] });
    assert.equal((lapsed[0]?.data.released as { nodeId: string }).nodeId, 'build');
    const after = events.slice(events.indexOf(lapsed[0] as (typeof events)[number]) + 1);
    assert.deepEqual(after[0]?.type === 'hold' ? after[0].data.held : 'no hold event', null, 'followed by the release');
    assert.equal((await call(`${url}/pipelines/${id}/lease`, { body: {} })).status, 409, 'a finished run has no lease to renew');
  });

  it('a lapse with nothing held and no breakpoints records nothing; a pause asked for lapses with the lease', async () => {
    const dir = workspaceWith('attractor-lease-', { 'held.dot': heldPipeline });
    const { url } = await started(dir, '--attach-lease', '0.2');
    const id = await submit(url, { path: 'held.dot' });
    const waiting = await until(url, id, (s) => s.pendingQuestions === 1);
    assert.equal((await call(`${url}/pipelines/${id}/lease`, { body: {} })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const idle = await summary(url, id);
    assert.equal(idle.attachLease.expiresAt, null, 'lapsed');
    assert.equal(idle.lastEventId, waiting.lastEventId, 'a debugger that held nothing lets nothing go: no event');

    assert.equal((await call(`${url}/pipelines/${id}/pause`, { body: {} })).status, 202);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const [question] = (await call(`${url}/pipelines/${id}/questions`)).body.questions as { id: string }[];
    await call(`${url}/pipelines/${id}/questions/${encodeURIComponent(question?.id ?? '')}/answer`, { body: { choice: 'G' } });
    assert.equal((await until(url, id, (s) => s.status !== 'running')).status, 'success', 'the pause went with the lease');
    const lapsed = (await readEvents(`${url}/pipelines/${id}/events`)).filter((event) => event.type === 'lease:lapsed');
    assert.equal(lapsed.length, 1);
    assert.deepEqual(lapsed[0]?.data.droppedBreakpoints, { nodes: [], edges: [] });
    assert.equal(lapsed[0]?.data.released, null);
  });

  it('attractor run --serve --attach-lease: a breakpoint nobody renews stops holding the run, which finishes', async () => {
    const dir = workspaceWith('attractor-lease-', { 'held.dot': heldPipeline });
    const { exited, runUrl, base, id, stderr } = await runServed(dir, 'held.dot', '--attach-lease', '2', '--logs-root', 'run');
    await until(base, id, (s) => s.pendingQuestions === 1);
    const set = await call(`${runUrl}/breakpoints`, { method: 'PUT', body: { nodes: ['build'] } });
    assert.equal((set.body as Summary).attachLease.periodMs, 2000);
    const [question] = (await call(`${runUrl}/questions`)).body.questions as { id: string }[];
    await call(`${runUrl}/questions/${encodeURIComponent(question?.id ?? '')}/answer`, { body: { choice: 'G' } });
    await until(base, id, (s) => s.held?.nodeId === 'build');
    assert.ok(!fs.existsSync(path.join(dir, 'built.txt')), 'held');
    assert.equal(await exited, 0, stderr());
    assert.ok(fs.existsSync(path.join(dir, 'checked.txt')), 'the run went past the breakpoint to its end');
  });

  it('refuses a lease that is not a duration, and one given to a run that is not served', () => {
    const dir = workspaceWith('attractor-lease-', { 'held.dot': heldPipeline });
    for (const [args, message] of [
      [['serve', '--attach-lease', '0'], /--attach-lease expects a number of seconds from 0\.1 to 86400, got "0"/],
      [['serve', '--attach-lease', '30s'], /got "30s"/],
      [['run', 'held.dot', '--attach-lease', '5'], /--attach-lease is for a run followed with --serve/],
    ] as const) {
      const result = spawnSync(process.execPath, [bundledCli(), ...args], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });
});
