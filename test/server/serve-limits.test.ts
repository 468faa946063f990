// What one client of `attractor serve` cannot take from the others: its event loop (a large
// submission to validate), its file descriptors (idle connections), its memory (finished runs).
// Through a real server process, as a client would.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { call, readEvents } from './serve-harness';
import { started, startedWith, submit, workspaceWith } from './served-in-tests';

/** A chain of `nodes` tool nodes with no exit: seconds of validation for one error. */
function exitlessChain(nodes: number): string {
  const lines = ['digraph chain {', '  start [shape=Mdiamond]', '  start -> n0'];
  for (let i = 0; i < nodes; i++) lines.push(`  n${i} [shape=parallelogram, tool_command="true"]`, `  n${i} -> n${i + 1}`);
  lines.push('}');
  return lines.join('\n');
}

/** POSTs `body` as JSON; `sent` resolves once the whole body is written, `answered` with the reply. */
function post(url: string, body: unknown): { sent: Promise<void>; answered: Promise<{ status: number; body: Record<string, unknown> }> } {
  const text = JSON.stringify(body);
  let sent: () => void = () => undefined;
  const whenSent = new Promise<void>((resolve) => (sent = resolve));
  const answered = new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (response) => {
      let data = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (data += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(data) as Record<string, unknown> }));
    });
    request.on('error', reject);
    request.end(text, sent);
  });
  return { sent: whenSent, answered };
}

describe('attractor serve: one client cannot stall the others', () => {
  it('answers other clients while it validates a large submission (off its event loop)', async () => {
    const dir = workspaceWith('attractor-serve-big-', {});
    const { url } = await started(dir, '--max-body', String(8 * 1024 * 1024));
    const order: string[] = [];
    const big = post(`${url}/pipelines`, { dot: exitlessChain(60_000) });
    const submitted = big.answered.then((reply) => {
      order.push('submission');
      return reply;
    });
    await big.sent;
    // The body is in; its validation takes seconds. Another client asks meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const listed = await call(`${url}/pipelines`);
    order.push('list');
    assert.equal(listed.status, 200);
    const reply = await submitted;
    assert.equal(reply.status, 422, JSON.stringify(reply.body).slice(0, 500));
    assert.ok((reply.body.diagnostics as { rule: string }[]).some((d) => d.rule === 'terminal_node'));
    assert.deepEqual(order, ['list', 'submission'], 'the list was answered while the submission was validated');
  });

  it('caps its connections below its open-file limit: a client over the cap gets 503, connected clients are served, tools still start, a silent client is let go', async () => {
    const dir = workspaceWith('attractor-serve-fds-', {});
    const { url, alive } = await startedWith(dir, { openFiles: 256 }, '--max-runs', '2');
    const id = await submit(url, { dot: gateThenTool });
    const eventsUrl = `${url}/pipelines/${id}/events`;
    const asked = await readEvents(eventsUrl, { until: (event) => event.type === 'human:question' });
    const qid = (asked.at(-1)?.data.question as { id: string }).id;
    // Connected before the flood: a follower of the run, and the client that will answer its gate
    // (its request's headers are in; its body waits).
    const followed = readEvents(eventsUrl);
    const answer = heldPost(`${url}/pipelines/${id}/questions/${encodeURIComponent(qid)}/answer`, { choice: 'G' });
    await answer.headersSent;
    // And one that connected and says nothing: the server lets it go, whenever that is.
    const silent = heardBeforeClosed(url);

    // More followers than the server has file descriptors, then idle connections that say nothing.
    const flood = await Promise.all(Array.from({ length: 300 }, () => getAlone(eventsUrl)));
    const idle = await Promise.all(Array.from({ length: 50 }, () => idleConnection(url)));
    // A new client: once the cap is taken (a connection that closed meanwhile leaves room for one more follower), a 503 that says why.
    const { refusal, followers } = await refusedWhileFull(eventsUrl);
    assert.equal(refusal.status, 503);
    assert.match(String(refusal.body.error), /connections/);
    assert.ok(alive(), 'the server is still running');

    // The connected client answers; the run goes on to its tool while the connections stay at the cap.
    const answered = await answer.send();
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    const events = await followed;
    const end = events.at(-1);
    assert.equal(end?.type, 'run:end');
    assert.equal(end?.data.status, 'success', JSON.stringify(end?.data));
    assert.equal(fs.readFileSync(path.join(dir, 'worked.txt'), 'utf8'), 'worked\n');
    // Every follower the server took in was served to the end of the run.
    const served = [...flood, ...followers].flatMap((reply) => ('status' in reply && reply.status === 200 ? [reply.body] : []));
    assert.ok(served.length > 0 && served.length < flood.length, `${served.length} of ${flood.length} followers were taken in`);
    for (const body of served) assert.match(await body, /event: run:end\n/);
    for (const socket of idle) socket.destroy();
    assert.match(await silent, /^HTTP\/1\.1 408 /);
    assert.ok(alive());
  });

  it('takes --max-connections as given, and says so at start when the open-file limit leaves little room', async () => {
    const dir = workspaceWith('attractor-serve-cap-', {});
    const { url, stderr } = await startedWith(dir, { openFiles: 100 }, '--max-runs', '8');
    assert.match(stderr(), /open-file limit \(100\) leaves little room beside 8 runs: at most \d+ connections/);
    const capped = await started(dir, '--max-connections', '2');
    const held = [heardBeforeClosed(capped.url), heardBeforeClosed(capped.url)];
    const refused = await refusedWhileFull(`${capped.url}/pipelines`);
    assert.equal(refused.refusal.status, 503, JSON.stringify(refused.refusal.body));
    assert.match(String(refused.refusal.body.error), /holds 2 connections/);
    assert.equal((await call(`${url}/pipelines`)).status, 200, 'the server with little room still serves');
    await capped.stop();
    await Promise.all(held);
  });

  it('keeps its memory bounded however many runs finish, and replays a finished run from its run directory', async () => {
    const dir = workspaceWith('attractor-serve-memory-', {});
    // Today's server keeps every event of every run: this heap held about 20 of these runs.
    const { url, alive, stderr } = await startedWith(dir, { nodeFlags: ['--max-old-space-size=40'] }, '--sandbox', 'off');
    const first = await submit(url, { dot: chatty });
    const live = await readEvents(`${url}/pipelines/${first}/events`);
    assert.equal(live.at(-1)?.type, 'run:end');
    for (let i = 1; i < 30; i++) {
      const id = await submit(url, { dot: chatty });
      const events = await readEvents(`${url}/pipelines/${id}/events`);
      assert.equal(events.at(-1)?.data.status, 'success', `run ${i}: ${JSON.stringify(events.at(-1))} ${stderr()}`);
    }
    assert.ok(alive(), stderr());
    // The first run, long finished: its stream from the start and after a Last-Event-ID, exactly as it went live.
    assert.deepEqual(await readEvents(`${url}/pipelines/${first}/events`), live);
    assert.deepEqual(await readEvents(`${url}/pipelines/${first}/events`, { lastEventId: 12 }), live.slice(12));
    assert.ok(fs.existsSync(path.join(dir, '.attractor-runs', first, 'served-events.jsonl')), 'the finished run\'s events are in its run directory');
    const summary = await call(`${url}/pipelines/${first}`);
    assert.equal(summary.body.status, 'success');
    assert.equal(summary.body.lastEventId, live.length);
    assert.deepEqual(summary.body.completedNodes, ['start', 'talk', 'done']);
    const graph = await fetch(`${url}/pipelines/${first}/graph`);
    assert.equal(graph.status, 200);
    assert.match(await graph.text(), /<svg/);
    assert.ok(alive(), stderr());
  });
});

/** Waits at a gate, then runs a tool: the tool starts while other clients hold the server's connections. */
const gateThenTool = `digraph later {
  start [shape=Mdiamond]
  gate [shape=hexagon, label="Go?"]
  work [shape=parallelogram, tool_command="echo worked > worked.txt"]
  done [shape=Msquare]
  start -> gate
  gate -> work [label="[G] Go"]
  work -> done
}`;

/** A tool that prints a few hundred kilobytes: each run's events weigh about 700 KB. */
const chatty = `digraph chatty {
  start [shape=Mdiamond]
  talk [shape=parallelogram, tool_command="seq 1 50000"]
  done [shape=Msquare]
  start -> talk -> done
}`;

/** A POST whose headers go out now and whose body goes when `send` is called. */
function heldPost(url: string, body: unknown): { headersSent: Promise<void>; send: () => Promise<{ status: number; body: Record<string, unknown> }> } {
  const text = JSON.stringify(body);
  const request = http.request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } });
  const reply = new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    request.on('response', (response) => {
      let data = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (data += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(data) as Record<string, unknown> }));
    });
    request.on('error', reject);
  });
  request.flushHeaders();
  const headersSent = new Promise<void>((resolve) => request.once('socket', (socket) => (socket.connecting ? socket.once('connect', () => resolve()) : resolve())));
  return {
    headersSent,
    send: () => {
      request.end(text);
      return reply;
    },
  };
}

/** A TCP connection to the server that sends nothing (open, or already closed by the server). */
function idleConnection(url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve(socket));
    socket.once('close', () => resolve(socket));
  });
}

type Alone = { readonly status: number; readonly body: Promise<string> } | { readonly error: Error };

/** GETs `url` on a connection of its own: the status, and the body once it ends (an event stream's, with its run). */
function getAlone(url: string): Promise<Alone> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      resolve({ status: response.statusCode ?? 0, body: new Promise((ended) => response.on('close', () => ended(text))) });
    });
    request.on('error', (error) => resolve({ error }));
  });
}

/** Connects and sends nothing; resolves with what the server said by the time it closed the connection. */
function heardBeforeClosed(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let heard = '';
    const socket = net.connect(Number(port), hostname);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (heard += chunk));
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(heard));
  });
}

/**
 * Asks until the server refuses: a client over the cap may find its connection closed at once
 * (while the few connections kept to be told why are taken), and one let in takes a place left by
 * a connection that closed (then it stays, a follower like the others).
 */
async function refusedWhileFull(url: string): Promise<{ refusal: { status: number; body: Record<string, unknown> }; followers: Alone[] }> {
  const followers: Alone[] = [];
  for (let attempt = 0; attempt < 100; attempt++) {
    const reply = await getAlone(url);
    if ('error' in reply) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    if (reply.status === 200) {
      followers.push(reply);
      continue;
    }
    return { refusal: { status: reply.status, body: JSON.parse(await reply.body) as Record<string, unknown> }, followers };
  }
  throw new Error('the server closed every connection over its cap without saying why');
}
