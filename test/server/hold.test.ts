import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { call, heldPipeline, readEvents } from './serve-harness';
import { runServed, started, submit, workspaceWith } from './served-in-tests';


type Summary = Record<string, unknown> & { held: (Record<string, unknown> & { lastOutcome: Record<string, unknown> | null }) | null; status: string };

async function summary(url: string, id: string, token?: string): Promise<Summary> {
  return (await call(`${url}/pipelines/${id}`, token ? { token } : {})).body as Summary;
}

async function until(url: string, id: string, accept: (summary: Summary) => boolean, token?: string): Promise<Summary> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const current = await summary(url, id, token);
    if (accept(current)) return current;
    if (Date.now() > deadline) throw new Error(`pipeline ${id} never got there: ${JSON.stringify(current)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function answerGate(url: string, id: string, choice: string, token?: string): Promise<void> {
  await until(url, id, (s) => s.pendingQuestions === 1, token);
  const { body } = await call(`${url}/pipelines/${id}/questions`, token ? { token } : {});
  const [question] = body.questions as { id: string }[];
  const reply = await call(`${url}/pipelines/${id}/questions/${encodeURIComponent(question?.id ?? '')}/answer`, { body: { choice }, ...(token ? { token } : {}) });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
}

describe('attractor serve: holding a run for an attached debugger (EXTENSIONS AT1)', () => {
  it('holds at node and edge breakpoints, steps to the next node, shows the held context, and continues to the end', async () => {
    const dir = workspaceWith('attractor-hold-', { 'held.dot': heldPipeline });
    const { url } = await started(dir);
    const id = await submit(url, { path: 'held.dot' });
    await until(url, id, (s) => s.pendingQuestions === 1);

    const set = await call(`${url}/pipelines/${id}/breakpoints`, { method: 'PUT', body: { nodes: ['build'], edges: [{ from: 'check', to: 'done' }] } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body.breakpoints, { nodes: ['build'], edges: [{ from: 'check', to: 'done' }] });
    await answerGate(url, id, 'G');

    const atBuild = await until(url, id, (s) => s.held !== null);
    assert.equal(atBuild.status, 'running');
    assert.deepEqual({ kind: atBuild.held?.kind, nodeId: atBuild.held?.nodeId, reason: atBuild.held?.reason, visit: atBuild.held?.visit }, { kind: 'node', nodeId: 'build', reason: 'breakpoint', visit: 1 });
    assert.equal(atBuild.held?.lastOutcome?.nodeId, 'ready');
    assert.ok(!fs.existsSync(path.join(dir, 'built.txt')), 'held before the node runs');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(!fs.existsSync(path.join(dir, 'built.txt')), 'and it stays held');
    const context = await call(`${url}/pipelines/${id}/context`);
    assert.equal(context.status, 200);
    assert.equal(context.body['human.gate.selected'], 'G', JSON.stringify(context.body));

    const stepped = await call(`${url}/pipelines/${id}/step`, { body: {} });
    assert.equal(stepped.status, 200, JSON.stringify(stepped.body));
    const atCheck = await until(url, id, (s) => s.held?.nodeId === 'check');
    assert.equal(atCheck.held?.reason, 'step');
    assert.equal(atCheck.held?.lastOutcome?.nodeId, 'build');
    assert.equal(atCheck.held?.lastOutcome?.status, 'success');
    assert.ok(fs.existsSync(path.join(dir, 'built.txt')), 'the step ran build');
    assert.ok(!fs.existsSync(path.join(dir, 'checked.txt')));

    assert.equal((await call(`${url}/pipelines/${id}/continue`, { body: {} })).status, 200);
    const onEdge = await until(url, id, (s) => s.held?.kind === 'edge');
    assert.deepEqual(onEdge.held?.edge, { index: 3, from: 'check', to: 'done' });
    assert.equal(onEdge.held?.lastOutcome?.nodeId, 'check');

    assert.equal((await call(`${url}/pipelines/${id}/continue`, { body: {} })).status, 200);
    const over = await until(url, id, (s) => s.status !== 'running');
    assert.equal(over.status, 'success');
    assert.equal(over.held, null);
    const late = await call(`${url}/pipelines/${id}/continue`, { body: {} });
    assert.equal(late.status, 409);
    assert.match(String(late.body.error), /already finished/);

    const holds = (await readEvents(`${url}/pipelines/${id}/events`)).filter((event) => event.type === 'hold').map((event) => (event.data.held as { nodeId: string } | null)?.nodeId ?? null);
    assert.deepEqual(holds, ['build', null, 'check', null, 'check', null], 'each hold and release is in the event stream');
  });

  it('pauses at the next node, refuses a continue when nothing is held, and lets go when the run is cancelled', async () => {
    const dir = workspaceWith('attractor-hold-', { 'held.dot': heldPipeline });
    const { url } = await started(dir);
    const id = await submit(url, { path: 'held.dot' });
    await until(url, id, (s) => s.pendingQuestions === 1);
    const early = await call(`${url}/pipelines/${id}/continue`, { body: {} });
    assert.equal(early.status, 409);
    assert.match(String(early.body.error), /is not held/);

    assert.equal((await call(`${url}/pipelines/${id}/pause`, { body: {} })).status, 202);
    await answerGate(url, id, 'G');
    const paused = await until(url, id, (s) => s.held !== null);
    assert.deepEqual({ nodeId: paused.held?.nodeId, reason: paused.held?.reason }, { nodeId: 'build', reason: 'pause' });

    assert.equal((await call(`${url}/pipelines/${id}/cancel`, { body: {} })).status, 202);
    const over = await until(url, id, (s) => s.status !== 'running');
    assert.equal(over.status, 'cancelled');
    assert.equal(over.held, null);
    assert.ok(!fs.existsSync(path.join(dir, 'built.txt')), 'the held node never ran');
  });

  it('refuses malformed, oversized and misdirected debugger requests with a JSON error', async () => {
    const dir = workspaceWith('attractor-hold-', { 'held.dot': heldPipeline });
    const { url } = await started(dir, '--max-body', '2000');
    const id = await submit(url, { path: 'held.dot' });
    const breakpoints = `${url}/pipelines/${id}/breakpoints`;
    const refusals: [string, Parameters<typeof call>[1], number, RegExp][] = [
      ['oversized', { method: 'PUT', body: { nodes: Array.from({ length: 400 }, (_, i) => `node_${i}`) } }, 413, /exceeds 2000 bytes/],
      ['not JSON', { method: 'PUT', rawBody: '{"nodes": [' }, 400, /not valid JSON/],
      ['not an object', { method: 'PUT', rawBody: '["build"]' }, 400, /JSON object/],
      ['unknown field', { method: 'PUT', body: { nodes: ['build'], when: 'now' } }, 400, /unknown field\(s\): when/],
      ['a node not an id', { method: 'PUT', body: { nodes: ['build; rm -rf /'] } }, 400, /nodes\[0\]: expected a node id/],
      ['an edge without its end', { method: 'PUT', body: { edges: [{ from: 'build' }] } }, 400, /edges\[0\]\.to: expected a node id/],
      ['an edge with extra fields', { method: 'PUT', body: { edges: [{ from: 'build', to: 'check', label: 'x' }] } }, 400, /unknown field\(s\): label/],
      ['edges not a list', { method: 'PUT', body: { edges: 'build->check' } }, 400, /edges: expected an array/],
      ['not PUT', { body: { nodes: ['build'] } }, 405, /accepts PUT, not POST/],
    ];
    for (const [what, init, status, message] of refusals) {
      const reply = await call(breakpoints, init);
      assert.equal(reply.status, status, `${what}: ${JSON.stringify(reply.body)}`);
      assert.match(String(reply.body.error), message, what);
    }
    assert.equal((await call(`${url}/pipelines/${id}/step`)).status, 405, 'step is a POST');
    assert.equal((await call(`${url}/pipelines/nope/pause`, { body: {} })).status, 404);
    assert.deepEqual((await summary(url, id)).breakpoints, { nodes: [], edges: [] }, 'no refused request changed the breakpoints');
    await call(`${url}/pipelines/${id}/cancel`, { body: {} });
  });

  it('on a non-loopback bind, takes breakpoints and releases only with the bearer token', async () => {
    const dir = workspaceWith('attractor-hold-', { 'held.dot': heldPipeline });
    const tokenFile = path.join(dir, 'token');
    const server = await started(dir, '--host', '0.0.0.0', '--token-file', tokenFile);
    const token = fs.readFileSync(tokenFile, 'utf8').trim();
    const id = await submit(server.url, { path: 'held.dot' }, token);
    await until(server.url, id, (s) => s.pendingQuestions === 1, token);
    const body = { nodes: ['build'] };
    assert.equal((await call(`${server.url}/pipelines/${id}/breakpoints`, { method: 'PUT', body })).status, 401);
    assert.equal((await call(`${server.url}/pipelines/${id}/pause`, { body: {} })).status, 401);
    assert.equal((await call(`${server.url}/pipelines/${id}/breakpoints`, { method: 'PUT', body, token: `${token}x` })).status, 401);
    assert.equal((await call(`${server.url}/pipelines/${id}/breakpoints`, { method: 'PUT', body, token })).status, 200);
    await answerGate(server.url, id, 'G', token);
    await until(server.url, id, (s) => s.held?.nodeId === 'build', token);
    assert.equal((await call(`${server.url}/pipelines/${id}/continue`, { body: {} })).status, 401, 'nothing moves without the token');
    assert.equal((await summary(server.url, id, token)).held?.nodeId, 'build');
    assert.equal((await call(`${server.url}/pipelines/${id}/continue`, { body: {}, token })).status, 200);
    assert.equal((await until(server.url, id, (s) => s.status !== 'running', token)).status, 'success');
  });

  it('attractor run --serve: a SIGINT lets go of a held run, which ends cancelled without running the held node', async () => {
    const dir = workspaceWith('attractor-hold-', { 'held.dot': heldPipeline });
    const { child, exited, runUrl, base, id, stderr } = await runServed(dir, 'held.dot', '--logs-root', 'run');
    await until(base, id, (s) => s.pendingQuestions === 1);
    assert.equal((await call(`${runUrl}/breakpoints`, { method: 'PUT', body: { nodes: ['build'] } })).status, 200);
    await answerGate(base, id, 'G');
    await until(base, id, (s) => s.held?.nodeId === 'build');
    child.kill('SIGINT');
    assert.equal(await exited, 1, stderr());
    assert.match(stderr(), /cancelled \(resumable\)/);
    assert.ok(!fs.existsSync(path.join(dir, 'built.txt')), 'the held node never ran');
  });
});
