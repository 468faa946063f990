// `attractor serve --on restate://…` killed (-9) and started again: it re-attaches to the runs it had
// submitted to Restate that have not ended (listed running, their history on SSE, their gate answered
// over HTTP, their cancel Restate's, their end Restate's), lists a run that ended while it was down with its end, offers no
// resume or re-run it would refuse (nor does its page, in headless Chromium), and contacts no ingress
// but its own whatever a run directory says.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { DurableRunClient } from '../../host/restate/restate-client';
import { ServeClient, type StreamedEvent } from '../../host/serve/serve-client';
import { launchChromium } from '../browser';
import { call, readEvents, serve, type Served } from '../server/serve-harness';
import { freePorts, type Cluster } from './restate-cluster';
import { startGatedCluster, submitGated } from './gated-pipeline';
import { SLOW } from '../server/admission-scenario';

let dir: string;
let shared: string;
let cluster: Cluster;
let server: Served | undefined;

before(async () => {
  ({ dir, shared, cluster } = await startGatedCluster('attractor-serve-restate-restart-'));
});
after(async () => {
  await server?.kill();
  cluster?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const submitted = (url: string) => submitGated(url, shared);

async function waitingQuestion(url: string, id: string): Promise<{ id: string; nodeId: string }> {
  for (;;) {
    const reply = await call(`${url}/pipelines/${id}/questions`);
    // Not listed yet (404) is waited for as a run with no gate open is.
    const [question] = (reply.body.questions ?? []) as Array<{ id: string; nodeId: string }>;
    if (question) return question;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A TCP port that counts who connects: what a forged run record names must never be called. */
async function trap(): Promise<{ url: string; connections: () => number; close: () => void }> {
  let connections = 0;
  const listener = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, connections: () => connections, close: () => listener.close() };
}

test('a killed server started again follows its runs on Restate: listed running, history on SSE, gate answered over HTTP, end from Restate', async () => {
  server = await serve(shared, '--on', cluster.on);
  const waiting = await submitted(server.url);
  const endsWhileDown = await submitted(server.url);
  const stopped = await submitted(server.url);
  const asked = await waitingQuestion(server.url, waiting.id);
  const otherGate = await waitingQuestion(server.url, endsWhileDown.id);
  await waitingQuestion(server.url, stopped.id);
  await server.kill();

  // While no server runs, the other run's gate is answered at Restate's ingress and the run ends there.
  const direct = new DurableRunClient(cluster.ingress, endsWhileDown.id);
  await direct.answer(otherGate.id, { choice: 'Y' });
  assert.equal((await direct.result()).status, 'success');
  // A run directory whose record names another ingress (a forged served.json in a committed runs directory).
  const bait = await trap();
  after(bait.close);
  const forged = path.join(shared, '.attractor-runs', 'forged');
  fs.cpSync(path.join(shared, '.attractor-runs', endsWhileDown.id), forged, { recursive: true });
  fs.writeFileSync(path.join(forged, 'served.json'), JSON.stringify({ served_id: 'forged', restate_ingress: bait.url }));

  server = await serve(shared, '--on', cluster.on);
  const listed = (await call(`${server.url}/pipelines`)).body.pipelines as Array<{ id: string; status: string; continuable: boolean }>;
  const row = (id: string) => listed.find((run) => run.id === id);
  assert.equal(row(waiting.id)?.status, 'running', JSON.stringify(listed));
  assert.ok(row(endsWhileDown.id), 'the run that ended while the server was down is listed');
  assert.ok(row('forged'), 'a run directory that names another ingress is listed as its directory shows it');
  // This server hands its runs to Restate: it offers neither resume nor re-run, and refuses them with its reason.
  assert.equal(row(waiting.id)?.continuable, false);
  assert.equal(row('forged')?.continuable, false);
  const rerun = await call(`${server.url}/pipelines/forged/rerun`, { body: { iteration: 0, node: 'prepare' } });
  assert.equal(rerun.status, 409);
  assert.match(rerun.body.error as string, /hands its runs to Restate/);

  // The history so far, replayed from the workers' events file: the walk up to the gate, its question once.
  const history = await readEvents(`${server.url}/pipelines/${waiting.id}/events`, { until: (event) => event.type === 'human:question' });
  assert.equal(history.filter((event) => event.type === 'run:start').length, 1);
  assert.ok(history.some((event) => event.type === 'node:end' && event.data.nodeId === 'prepare'), JSON.stringify(history.map((event) => event.type)));
  const question = await waitingQuestion(server.url, waiting.id);
  assert.equal(question.id, asked.id);
  const answered = await call(`${server.url}/pipelines/${waiting.id}/questions/${encodeURIComponent(question.id)}/answer`, { body: { choice: 'Y' } });
  assert.equal(answered.status, 200, JSON.stringify(answered.body));
  const events = await readEvents(`${server.url}/pipelines/${waiting.id}/events`);
  assert.deepEqual(events.filter((event) => event.type.startsWith('human:')).map((event) => event.type), ['human:question', 'human:answer']);
  assert.deepEqual(events.at(-1)?.data, { type: 'run:end', status: 'success', durationMs: events.at(-1)?.data.durationMs });
  assert.equal((await call(`${server.url}/pipelines/${waiting.id}`)).body.status, 'success');
  assert.equal(fs.readFileSync(path.join(waiting.cwd, 'steps.log'), 'utf8'), 'prepare\nship\n');

  // The run that ended while the server was down: its end, and its whole history with its gate once.
  const ended = await readEvents(`${server.url}/pipelines/${endsWhileDown.id}/events`);
  assert.deepEqual(ended.filter((event) => event.type.startsWith('human:')).map((event) => event.type), ['human:question', 'human:answer']);
  assert.equal(ended.at(-1)?.data.status, 'success');
  assert.equal((await call(`${server.url}/pipelines/${endsWhileDown.id}`)).body.status, 'success');

  assert.equal(bait.connections(), 0, 'the forged record made the server call the URL it names');

  // A run followed again is cancelled through the server; its page offers neither Resume nor "Re-run from here" (it would refuse them).
  assert.equal((await call(`${server.url}/pipelines/${stopped.id}/cancel`, { body: {} })).status, 202);
  assert.equal((await readEvents(`${server.url}/pipelines/${stopped.id}/events`)).at(-1)?.data.status, 'cancelled');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}/?run=${encodeURIComponent(stopped.id)}`);
    await page.locator('.run-state[data-status="cancelled"]').waitFor();
    await page.locator('.toolbar .run-status', { hasText: 'cancelled' }).waitFor();
    await page.locator('.trace-panel tbody tr[data-node="prepare"]').click();
    await page.locator('.visit-artifacts h3').waitFor();
    assert.equal(await page.isVisible('.visit-artifacts .rerun-from'), false);
    assert.equal(await page.isVisible('.run-resume'), false);
  } finally {
    await browser.close();
  }
});

test("a gate answered while no server ran is not offered again, though its answer is not yet in the run's events", async () => {
  server ??= await serve(shared, '--on', cluster.on);
  const run = await submitted(server.url);
  const asked = await waitingQuestion(server.url, run.id);
  await server.kill();
  // A live engine (this process, by its lock) holds the run directory: the step that takes the answer is retried until it lets go.
  const lock = path.join(shared, '.attractor-runs', run.id, 'engine.lock');
  fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString() }));
  await new DurableRunClient(cluster.ingress, run.id).answer(asked.id, { choice: 'Y' });

  server = await serve(shared, '--on', cluster.on);
  const history = await readEvents(`${server.url}/pipelines/${run.id}/events`, { until: (event) => event.type === 'human:question' });
  assert.equal((history.at(-1)?.data.question as { id?: string } | undefined)?.id, asked.id);
  const summary = (await call(`${server.url}/pipelines/${run.id}`)).body;
  assert.equal(summary.status, 'running');
  assert.equal(summary.pendingQuestions, 0, 'the gate Restate holds answered is offered');
  assert.equal((await call(`${server.url}/pipelines/${run.id}/questions/${encodeURIComponent(asked.id)}/answer`, { body: { choice: 'N' } })).status, 404);

  fs.rmSync(lock);
  const events = await readEvents(`${server.url}/pipelines/${run.id}/events`);
  assert.deepEqual(events.filter((event) => event.type.startsWith('human:')).map((event) => event.type), ['human:question', 'human:answer']);
  assert.equal(events.at(-1)?.data.status, 'success');
  assert.equal(fs.readFileSync(path.join(run.cwd, 'steps.log'), 'utf8'), 'prepare\nship\n');
});

test('an answer held while every slot was taken outlives the server: the run followed again gets it at its turn, and its gate is asked no one', async () => {
  await server?.kill();
  fs.writeFileSync(path.join(shared, 'slow.dot'), SLOW);
  const stateDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-serve-held-state-')));
  const oneSlot = () => serve(shared, '--on', cluster.on, '--max-runs', '1', '--state-dir', stateDir);
  server = await oneSlot();
  const gated = await submitted(server.url);
  const asked = await waitingQuestion(server.url, gated.id);
  const slow = await call(`${server.url}/pipelines`, { body: { path: path.join(shared, 'slow.dot'), cwd: fs.mkdtempSync(path.join(shared, 'run-')) } });
  assert.equal(slow.body.status, 'running', 'the slow run takes the only slot');
  const held = await call(`${server.url}/pipelines/${gated.id}/questions/${encodeURIComponent(asked.id)}/answer`, { body: { choice: 'Y' } });
  assert.deepEqual([held.status, held.body], [202, { answered: asked.id, queuePosition: 1 }]);
  await server.kill();

  // Restate's workers walk the slow run on: it still holds the slot, and the answered run waits its turn with its answer.
  server = await oneSlot();
  const waiting = (await call(`${server.url}/pipelines/${gated.id}`)).body;
  assert.deepEqual([waiting.status, waiting.queuePosition, waiting.pendingQuestions], ['running', 1, 0], JSON.stringify(waiting));
  assert.equal((await call(`${server.url}/pipelines/${gated.id}/questions/${encodeURIComponent(asked.id)}/answer`, { body: { choice: 'N' } })).status, 404, 'the held answer is the only one');
  assert.equal((await call(`${server.url}/pipelines/${slow.body.id as string}/cancel`, { body: {} })).status, 202);
  const events = await readEvents(`${server.url}/pipelines/${gated.id}/events`);
  assert.deepEqual(events.filter((event) => event.type.startsWith('human:')).map((event) => event.type), ['human:question', 'human:answer']);
  assert.equal(events.at(-1)?.data.status, 'success');
  assert.equal(fs.readFileSync(path.join(gated.cwd, 'steps.log'), 'utf8'), 'prepare\nship\n', 'the gate took the held answer, Yes');
});

test("VS Code's client following a run goes on across the server's kill -9 and restart: each event once, numbered as before", async () => {
  await server?.kill();
  const [port] = await freePorts(1);
  const onPort = () => serve(shared, '--on', cluster.on, '--port', String(port));
  server = await onPort();
  const run = await submitted(server.url);
  const client = new ServeClient({ url: server.url });
  const followed: StreamedEvent[] = [];
  const following = client.follow(run.id, (streamed) => followed.push(streamed), { signal: AbortSignal.timeout(120_000) });
  const asked = await waitingQuestion(server.url, run.id);
  while (!followed.some((streamed) => streamed.event.type === 'human:question')) await new Promise((resolve) => setTimeout(resolve, 50));
  await server.kill();
  server = await onPort();
  assert.equal((await waitingQuestion(server.url, run.id)).id, asked.id);
  assert.equal((await call(`${server.url}/pipelines/${run.id}/questions/${encodeURIComponent(asked.id)}/answer`, { body: { choice: 'Y' } })).status, 200);
  assert.equal(await following, 'finished');
  const whole = await readEvents(`${server.url}/pipelines/${run.id}/events`);
  assert.deepEqual(
    followed.map((streamed) => [streamed.id, streamed.event.type]),
    whole.map((event) => [event.id, event.type]),
  );
  assert.deepEqual(followed.map((streamed) => streamed.id), followed.map((_, i) => i + 1));
  const last = followed.at(-1)?.event;
  assert.equal(last?.type === 'run:end' ? last.status : last?.type, 'success');
});

test('a run submitted while no worker served, before its first checkpoint, is followed once a worker has started it after the restart', async () => {
  server ??= await serve(shared, '--on', cluster.on);
  const [worker] = cluster.workers;
  assert.ok(worker?.port);
  worker.kill9();
  const run = await submitted(server.url);
  await server.kill();
  server = await serve(shared, '--on', cluster.on);
  await cluster.startWorker('worker-again', worker.port);
  const asked = await waitingQuestion(server.url, run.id);
  assert.equal((await call(`${server.url}/pipelines/${run.id}/questions/${encodeURIComponent(asked.id)}/answer`, { body: { choice: 'Y' } })).status, 200);
  const events = await readEvents(`${server.url}/pipelines/${run.id}/events`);
  assert.equal(events.filter((event) => event.type === 'run:start').length, 1);
  assert.equal(events.at(-1)?.data.status, 'success');
  assert.equal(fs.readFileSync(path.join(run.cwd, 'steps.log'), 'utf8'), 'prepare\nship\n');
});
