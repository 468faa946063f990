import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import { bundledCli } from '../test-bundle';
import type { SseEvent } from './serve-harness';
import { call, gated, rawCall, readEvents } from './serve-harness';
import { workspaceWith, started } from './served-in-tests';
import { branchAndTimeout } from '../fixtures/branch-and-timeout';

const slow = `digraph slow {
  start [shape=Mdiamond]
  wait [shape=parallelogram, tool_command="sleep 30 && echo late > late.txt"]
  done [shape=Msquare]
  start -> wait -> done
}`;

function workspace(): string {
  return workspaceWith('attractor-serve-', { 'gated.dot': gated, 'slow.dot': slow });
}

describe('attractor serve (HTTP, canonical §9.5)', () => {
  it("streams canonical §9.6's per-branch parallel events and a gate's interview timeout as SSE", async () => {
    const dir = workspaceWith('attractor-serve-branches-', { 'branches.dot': branchAndTimeout });
    const { url } = await started(dir);
    const submitted = await call(`${url}/pipelines`, { body: { path: 'branches.dot' } });
    const events = await readEvents(`${url}/pipelines/${submitted.body.id as string}/events`);
    assert.equal(events.at(-1)?.data.status, 'success');
    const branch = (type: string) => events.filter((event) => event.type === type).map((event) => event.data);
    assert.deepEqual(branch('parallel:branch:start').map((data) => [data.nodeId, data.branch, data.index]).sort(), [['fan', 'left', 0], ['fan', 'right', 1]]);
    const ended = branch('parallel:branch:end').map((data) => [data.branch, data.status, data.success, typeof data.durationMs]).sort();
    assert.deepEqual(ended, [['left', 'success', true, 'number'], ['right', 'fail', false, 'number']]);
    const [timeout, ...more] = branch('human:timeout');
    assert.deepEqual(more, []);
    assert.equal(timeout?.nodeId, 'gate');
    assert.equal(timeout?.defaultChoice, 'S');
    assert.ok((timeout?.durationMs as number) >= 900, `waited ${String(timeout?.durationMs)} ms`);
    assert.equal(fs.readFileSync(path.join(dir, 'shipped.txt'), 'utf8'), 'shipped\n');
  });

  it('streams a run as SSE, resumes the stream after Last-Event-ID, and takes a human gate answer over HTTP', async () => {
    const dir = workspace();
    const { url } = await started(dir);
    const submitted = await call(`${url}/pipelines`, { body: { path: 'gated.dot' } });
    assert.equal(submitted.status, 201, JSON.stringify(submitted.body));
    const id = submitted.body.id as string;
    assert.equal(submitted.headers.get('location'), `/pipelines/${id}`);
    const events = `${url}/pipelines/${id}/events`;

    // First connection: up to the gate's question, then the client goes away.
    const first = await readEvents(events, { until: (event) => event.type === 'human:question' });
    const asked = first.at(-1) as SseEvent;
    assert.deepEqual(first.map((event) => event.id), first.map((_, index) => index + 1));

    const { body: pending } = await call(`${url}/pipelines/${id}/questions`);
    const questions = pending.questions as { id: string; nodeId: string; options: { key: string }[] }[];
    assert.equal(questions.length, 1);
    assert.equal(questions[0]?.nodeId, 'gate');
    assert.deepEqual(questions[0]?.options.map((option) => option.key), ['Y', 'N']);
    const qid = encodeURIComponent(questions[0]?.id ?? '');
    assert.equal((await call(`${url}/pipelines/${id}`)).body.status, 'running');

    const resumed = readEvents(events, { lastEventId: asked.id });
    const answered = await call(`${url}/pipelines/${id}/questions/${qid}/answer`, { body: { choice: 'Y' } });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    const rest = await resumed;
    assert.equal(rest[0]?.id, asked.id + 1, 'the resumed stream starts right after Last-Event-ID');
    assert.equal(rest.at(-1)?.type, 'run:end', 'the stream ends after the run does');
    assert.equal(rest.at(-1)?.data.status, 'success');
    assert.ok(rest.some((event) => event.type === 'human:answer' && event.data.answer === 'Y'));

    // Both halves together are exactly the whole stream, as a fresh client reads it.
    const whole = await readEvents(events);
    assert.deepEqual([...first, ...rest], whole);

    assert.equal((await call(`${url}/pipelines/${id}/questions/${qid}/answer`, { body: { choice: 'Y' } })).status, 404, 'a question is answered once');
    const status = await call(`${url}/pipelines/${id}`);
    assert.equal(status.body.status, 'success');
    assert.equal(status.body.logsRoot, path.join(dir, '.attractor-runs', id));
    assert.equal(fs.readFileSync(path.join(dir, 'built.txt'), 'utf8'), 'built\n');
    assert.equal((await call(`${url}/pipelines/${id}/context`)).body['human.gate.selected'], 'Y');
    assert.equal((await call(`${url}/pipelines/${id}/checkpoint`)).body.status, 'success');
    const graph = await fetch(`${url}/pipelines/${id}/graph`);
    assert.equal(graph.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
    const svg = await graph.text();
    assert.match(svg, /<svg[\s\S]*id="node:gate"/);
    assert.match(svg, /fill="#c8e6c9"/, 'finished nodes are filled by their status');
    const listed = (await call(`${url}/pipelines`)).body.pipelines as { id: string }[];
    assert.deepEqual(listed.map((run) => run.id), [id]);
  });

  it('a served run holds its run directory: `attractor resume` on it is refused while it waits at a gate', async () => {
    const dir = workspace();
    const { url } = await started(dir);
    const submitted = await call(`${url}/pipelines`, { body: { path: 'gated.dot' } });
    assert.equal(submitted.status, 201, JSON.stringify(submitted.body));
    const id = submitted.body.id as string;
    await readEvents(`${url}/pipelines/${id}/events`, { until: (event) => event.type === 'human:question' });
    const logsRoot = path.join(dir, '.attractor-runs', id);
    const resume = spawn(process.execPath, [bundledCli(), 'resume', logsRoot], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    resume.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => resume.once('exit', resolve));
    assert.equal(code, 2, stderr);
    assert.match(stderr, /engine|lock/i);
    assert.equal((await call(`${url}/pipelines/${id}`)).body.status, 'running', 'the served run goes on');
    const manifest = JSON.parse(fs.readFileSync(path.join(logsRoot, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual([typeof manifest.runner_version, manifest.provider], ['string', 'none'], 'a served run stamps its runner (ledger §28)');
    await call(`${url}/pipelines/${id}/cancel`, { method: 'POST' });
  });

  it('cancels a running pipeline: its command stops, the run ends cancelled, a second cancel is refused', async () => {
    const dir = workspace();
    const server = await started(dir, '--max-runs', '1', '--max-queued', '0');
    const { url } = server;
    const submitted = await call(`${url}/pipelines`, { body: { dot: slow } });
    assert.equal(submitted.status, 201, JSON.stringify(submitted.body));
    const id = submitted.body.id as string;
    await readEvents(`${url}/pipelines/${id}/events`, { until: (event) => event.type === 'node:start' && event.data.nodeId === 'wait' });
    const busy = await call(`${url}/pipelines`, { body: { path: 'gated.dot' } });
    assert.equal(busy.status, 503, 'one run at a time (--max-runs 1), none waiting (--max-queued 0)');
    assert.match(String(busy.body.error), /--max-queued/);
    assert.equal(busy.headers.get('retry-after'), '10');
    const t0 = Date.now();
    const cancelled = await call(`${url}/pipelines/${id}/cancel`, { method: 'POST' });
    assert.equal(cancelled.status, 202);
    const events = await readEvents(`${url}/pipelines/${id}/events`);
    assert.equal(events.at(-1)?.type, 'run:end');
    assert.equal(events.at(-1)?.data.status, 'cancelled');
    assert.ok(Date.now() - t0 < 10_000, 'cancel does not wait for the command');
    assert.equal((await call(`${url}/pipelines/${id}`)).body.status, 'cancelled');
    assert.equal((await call(`${url}/pipelines/${id}/cancel`, { method: 'POST' })).status, 409);
    assert.ok(!fs.existsSync(path.join(dir, 'late.txt')));

    // SIGTERM cancels what still runs and exits 0 without waiting for its command.
    const other = (await call(`${url}/pipelines`, { body: { path: 'slow.dot' } })).body.id as string;
    await readEvents(`${url}/pipelines/${other}/events`, { until: (event) => event.type === 'node:start' && event.data.nodeId === 'wait' });
    const t1 = Date.now();
    assert.equal(await server.stop(), 0);
    assert.ok(Date.now() - t1 < 10_000);
  });

  it('on a non-loopback bind, requires the bearer token it generated (stored mode 0600, printed once)', async () => {
    const dir = workspace();
    const tokenFile = path.join(dir, 'secrets', 'token');
    const server = await started(dir, '--host', '0.0.0.0', '--token-file', tokenFile);
    const token = fs.readFileSync(tokenFile, 'utf8').trim();
    assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600);
    assert.ok(server.stderr().includes(token), 'the new token is shown once');
    const refused = await call(`${server.url}/pipelines`);
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer');
    assert.equal((await call(`${server.url}/pipelines`, { token: `${token}x` })).status, 401);
    assert.equal((await call(`${server.url}/pipelines`, { body: { path: 'gated.dot' } })).status, 401, 'nothing runs without the token');
    assert.ok(!fs.existsSync(path.join(dir, '.attractor-runs')));
    assert.equal((await call(`${server.url}/pipelines`, { token })).status, 200);
    await server.stop();

    const again = await started(dir, '--host', '0.0.0.0', '--token-file', tokenFile);
    assert.equal((await call(`${again.url}/pipelines`, { token })).status, 200, 'the stored token stays valid');
    assert.ok(!again.stderr().includes(token), 'an existing token is not printed again');

    const loopback = await started(dir, '--token-file', tokenFile);
    assert.equal((await call(`${loopback.url}/pipelines`)).status, 401, 'a token file asks for the token on loopback too');
    assert.equal((await call(`${loopback.url}/pipelines`, { token })).status, 200);
  });

  it('refuses oversized, malformed and invalid bodies with a JSON error, and runs nothing', async () => {
    const dir = workspace();
    const { url } = await started(dir, '--max-body', '2000');
    const refusals: [string, Parameters<typeof call>[1], number, RegExp][] = [
      ['oversized', { body: { dot: `${gated}\n${'// padding\n'.repeat(300)}` } }, 413, /exceeds 2000 bytes/],
      ['not JSON', { rawBody: '{"path": ' }, 400, /not valid JSON/],
      ['not an object', { rawBody: '["gated.dot"]' }, 400, /JSON object/],
      ['not JSON content', { rawBody: 'path=gated.dot', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 415, /application\/json/],
      ['both dot and path', { body: { dot: gated, path: 'gated.dot' } }, 400, /exactly one of "dot"/],
      ['unknown field', { body: { path: 'gated.dot', cmd: 'rm -rf /' } }, 400, /unknown field\(s\): cmd/],
      ['a param not a string', { body: { path: 'gated.dot', params: { n: 1 } } }, 400, /params\.n: expected a string/],
      ['invalid pipeline', { body: { dot: 'digraph t { a -> b }' } }, 422, /error\(s\); the pipeline was not started/],
    ];
    for (const [what, init, status, message] of refusals) {
      const reply = await call(`${url}/pipelines`, init);
      assert.equal(reply.status, status, `${what}: ${JSON.stringify(reply.body)}`);
      assert.match(String(reply.body.error), message, what);
    }
    const port = new URL(url).port;
    const chunked = await rawCall({ host: '127.0.0.1', port, method: 'POST', path: '/pipelines' }, { dot: 'x'.repeat(5000) }, { chunked: true });
    assert.equal(chunked.status, 413, 'a body without Content-Length is cut off at the limit too');
    const invalid = await call(`${url}/pipelines`, { body: { dot: 'digraph t { a -> b }' } });
    assert.ok((invalid.body.diagnostics as { rule: string }[]).some((d) => d.rule === 'start_node'));
    assert.deepEqual((await call(`${url}/pipelines`)).body.pipelines, []);

    const run = await call(`${url}/pipelines`, { body: { path: 'gated.dot' } });
    const id = run.body.id as string;
    const badAnswer = await call(`${url}/pipelines/${id}/questions/x/answer`, { body: { choice: 'Y', text: 'yes' } });
    assert.equal(badAnswer.status, 400);
    assert.equal((await call(`${url}/pipelines/${id}/questions/unknown/answer`, { body: { choice: 'Y' } })).status, 404);
    const badResume = await fetch(`${url}/pipelines/${id}/events`, { headers: { 'last-event-id': 'abc' } });
    assert.equal(badResume.status, 400);
    assert.equal((await call(`${url}/pipelines/nope`)).status, 404);
    assert.equal((await call(`${url}/pipelines/${id}/graph`, { method: 'DELETE' })).status, 405);
    const rebound = await rawCall({ host: '127.0.0.1', port, path: '/pipelines', headers: { host: 'attacker.example' } });
    assert.equal(rebound.status, 403, 'a tokenless server answers only requests naming a loopback host (DNS rebinding)');
    const fromPage = await rawCall({ host: '127.0.0.1', port, method: 'POST', path: `/pipelines/${id}/cancel`, headers: { origin: 'https://attacker.example' } });
    assert.equal(fromPage.status, 403, 'nor requests a web page sends');
    assert.equal((await call(`${url}/pipelines/${id}`)).body.status, 'running');
    await call(`${url}/pipelines/${id}/cancel`, { method: 'POST' });
  });

  it('runs pipelines and cwds only under its roots (403 outside, symbolic links included)', async () => {
    const dir = workspace();
    const outside = workspace();
    fs.symlinkSync(outside, path.join(dir, 'escape'));
    const { url } = await started(dir);
    const refusals: Record<string, unknown>[] = [
      { path: path.join(outside, 'gated.dot') },
      { path: '../' + path.basename(outside) + '/gated.dot' },
      { path: 'escape/gated.dot' },
      { path: 'gated.dot', cwd: outside },
      { dot: gated, cwd: 'escape' },
    ];
    for (const body of refusals) {
      const reply = await call(`${url}/pipelines`, { body });
      assert.equal(reply.status, 403, JSON.stringify(body));
      assert.match(String(reply.body.error), /outside the server's roots/);
    }
    assert.equal((await call(`${url}/pipelines`, { body: { path: 'missing.dot' } })).status, 400);
    assert.deepEqual((await call(`${url}/pipelines`)).body.pipelines, []);

    // A second root is as good as the first; runs still go to the first root's .attractor-runs.
    const { url: both } = await started(dir, '--root', dir, '--root', outside);
    const run = await call(`${both}/pipelines`, { body: { dot: slow.replace('sleep 30 && ', ''), cwd: outside } });
    assert.equal(run.status, 201, JSON.stringify(run.body));
    const events = await readEvents(`${both}/pipelines/${run.body.id as string}/events`);
    assert.equal(events.at(-1)?.data.status, 'success');
    assert.ok(fs.existsSync(path.join(outside, 'late.txt')));
    assert.ok(fs.existsSync(path.join(dir, '.attractor-runs', run.body.id as string)));
  });

  it('attractor run --serve PORT follows a local run over the same API; its gate is answered over HTTP, then the CLI exits', async () => {
    const dir = workspace();
    const child = spawn(process.execPath, [bundledCli(), 'run', 'gated.dot', '--serve', '0', '--logs-root', 'run', '--json'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const runUrl = await new Promise<string>((resolve) => {
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /following this run at (http:\/\/127\.0\.0\.1:\d+\/pipelines\/\S+)/.exec(stderr);
        if (match?.[1]) resolve(match[1]);
      });
    });
    const base = runUrl.slice(0, runUrl.indexOf('/pipelines'));
    const listed = (await call(`${base}/pipelines`)).body.pipelines as { id: string; logsRoot: string }[];
    assert.deepEqual(listed.map((run) => run.logsRoot), [path.join(dir, 'run')]);
    assert.equal((await call(`${base}/pipelines`, { body: { path: 'gated.dot' } })).status, 405, 'it starts no other run');
    await readEvents(`${runUrl}/events`, { until: (event) => event.type === 'human:question' });
    const questions = (await call(`${runUrl}/questions`)).body.questions as { id: string }[];
    const answered = await call(`${runUrl}/questions/${encodeURIComponent(questions[0]?.id ?? '')}/answer`, { body: { choice: 'N' } });
    assert.equal(answered.status, 200);
    // N loops back to build and asks again: the second answer ends the run.
    const asked = await readEvents(`${runUrl}/events`, { until: (event) => event.type === 'human:question' && (event.data.question as { id: string }).id !== questions[0]?.id });
    assert.equal(asked.filter((event) => event.type === 'node:start' && event.data.nodeId === 'build').length, 2);
    const again = (await call(`${runUrl}/questions`)).body.questions as { id: string }[];
    await call(`${runUrl}/questions/${encodeURIComponent(again[0]?.id ?? '')}/answer`, { body: { choice: 'Y' } });
    assert.equal(await exited, 0);
    assert.equal(JSON.parse(stdout.trim().split('\n').pop() ?? '{}').status, 'success');
    await assert.rejects(fetch(`${base}/pipelines`), 'the server stops with the run');
  });

  it('attractor run --serve with --scripted: the script answers the gate first, HTTP only watches', async () => {
    const dir = workspace();
    fs.writeFileSync(path.join(dir, 'answers.json'), JSON.stringify({ human: { gate: ['Y'] } }));
    const child = spawn(process.execPath, [bundledCli(), 'run', 'gated.dot', '--serve', '0', '--scripted', 'answers.json', '--logs-root', 'run', '--json'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    assert.equal(await new Promise((resolve) => child.once('exit', resolve)), 0, stderr);
    assert.match(stderr, /following this run at http:\/\/127\.0\.0\.1:\d+\/pipelines\//);
    assert.equal(JSON.parse(stdout.trim().split('\n').pop() ?? '{}').status, 'success');
  });
});
