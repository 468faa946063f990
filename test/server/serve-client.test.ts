// The client VS Code uses for `attractor serve`, against the real server process on 127.0.0.1 (and
// `attractor run --serve` on a Unix socket).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ServeClient, ServeRequestError, type StreamedEvent } from '../../host/serve/serve-client';
import { bundledCli } from '../test-bundle';
import { gated } from './serve-harness';
import { workspaceWith, started, submit } from './served-in-tests';

function workspace(): string {
  return workspaceWith('attractor-serve-client-', { 'gated.dot': gated });
}

/** Follows a run, answering each question with the next of `answers` through the client. */
async function followAnswering(client: ServeClient, id: string, answers: string[], options: { lastEventId?: number } = {}): Promise<StreamedEvent[]> {
  const events: StreamedEvent[] = [];
  const answering: Promise<void>[] = [];
  const ending = await client.follow(
    id,
    (streamed) => {
      events.push(streamed);
      if (streamed.event.type === 'human:question') answering.push(client.answer(id, streamed.event.question.id, { kind: 'option', choice: answers.shift() ?? 'Y' }));
    },
    { ...options, reconnectDelayMs: 10 },
  );
  await Promise.all(answering);
  assert.equal(ending, 'finished');
  return events;
}

const yesNo = `digraph yes_no {
  start [shape=Mdiamond]
  ask [shape=hexagon, label="Deploy?", "human.question_type"=yes_no]
  ship [shape=parallelogram, tool_command="echo shipped > answer.txt"]
  keep [shape=parallelogram, tool_command="echo kept > answer.txt"]
  done [shape=Msquare]
  start -> ask
  ask -> ship [label="[Y] Yes"]
  ask -> keep [label="[N] No"]
  ship -> done
  keep -> done
}`;

describe('ServeClient against attractor serve', () => {
  it('a yes/no question (canonical §6.2) reaches the client checked, with its type and Y/N options; "no" answers it over HTTP', async () => {
    const dir = workspaceWith('attractor-serve-yes-no-', { 'yes-no.dot': yesNo });
    const { url } = await started(dir);
    const client = new ServeClient({ url });
    const id = await submit(url, { path: 'yes-no.dot' });
    let pending = await client.questions(id);
    for (let tries = 0; pending.length === 0 && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      pending = await client.questions(id);
    }
    const [question] = pending;
    assert.equal(question?.type, 'yes_no');
    assert.deepEqual(question?.options.map((option) => [option.key, option.to]), [['Y', 'ship'], ['N', 'keep']]);
    const answered = await fetch(`${url}/pipelines/${id}/questions/${encodeURIComponent(question?.id ?? '')}/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ choice: 'no' }) });
    assert.equal(answered.status, 200);
    for (let tries = 0; (await client.get(id)).status === 'running' && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.equal((await client.get(id)).status, 'success');
    assert.equal(fs.readFileSync(path.join(dir, 'answer.txt'), 'utf8'), 'kept\n');
  });

  it('lists runs, reads a run\'s source, follows it to its end and answers its gates', async () => {
    const dir = workspace();
    const { url } = await started(dir);
    const client = new ServeClient({ url });
    const id = await submit(url, { path: 'gated.dot' });
    assert.deepEqual((await client.list()).map((run) => run.id), [id]);
    assert.equal(await client.source(id), gated);

    const events = await followAnswering(client, id, ['N', 'Y']);
    assert.deepEqual(events.map((streamed) => streamed.id), events.map((_, index) => index + 1), 'every event once, in order');
    assert.equal(events.filter((streamed) => streamed.event.type === 'human:question').length, 2);
    const last = events.at(-1)?.event;
    assert.equal(last?.type, 'run:end');
    assert.equal(last.type === 'run:end' && last.status, 'success');
    const summary = await client.get(id);
    assert.equal(summary.status, 'success');
    assert.equal(summary.lastEventId, events.length);

    // Following again after the end replays from the given event on, then finishes.
    const tail: StreamedEvent[] = [];
    assert.equal(await client.follow(id, (streamed) => tail.push(streamed), { lastEventId: events.length - 2 }), 'finished');
    assert.deepEqual(tail.map((streamed) => streamed.id), [events.length - 1, events.length]);

    await assert.rejects(client.answer(id, 'no-such-question', { kind: 'skipped' }), (error: unknown) => error instanceof ServeRequestError && error.status === 404);
    await assert.rejects(client.cancel(id), (error: unknown) => error instanceof ServeRequestError && error.status === 409 && /already finished/.test(error.message));
  });

  it('resumes a dropped event stream after the last event it received (Last-Event-ID): no event lost or repeated', async () => {
    const dir = workspace();
    const { url } = await started(dir);
    const id = await submit(url, { path: 'gated.dot' });
    // A proxy that ends the first event stream once its first events have passed, mid-run.
    const upstream = new URL(url);
    let streams = 0;
    const resumedAfter: number[] = [];
    const proxy = net.createServer((socket) => {
      const server = net.connect(Number(upstream.port), upstream.hostname);
      socket.pipe(server);
      let cut = false;
      // Every request on the connection: a client may send the reconnect over a kept-alive one.
      socket.on('data', (head: Buffer) => {
        const request = head.toString();
        if (!/^GET \S*\/events/.test(request)) return;
        cut = ++streams === 1;
        resumedAfter.push(Number(/last-event-id: (\d+)/i.exec(request)?.[1]));
      });
      server.on('data', (chunk: Buffer) => {
        socket.write(chunk);
        if (cut && /(^|\n)id: \d+\n/.test(chunk.toString())) {
          socket.end();
          server.destroy();
        }
      });
      server.on('end', () => socket.end());
      server.on('error', () => socket.destroy());
      socket.on('error', () => server.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const client = new ServeClient({ url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}` });
      const events = await followAnswering(client, id, ['Y']);
      assert.ok(streams >= 2, `the stream was reopened (${streams} event streams)`);
      assert.equal(resumedAfter[0], 0);
      assert.ok((resumedAfter[1] ?? 0) > 0, `the second stream resumed after the events the first delivered (${resumedAfter.join(', ')})`);
      assert.deepEqual(events.map((streamed) => streamed.id), events.map((_, index) => index + 1));
      assert.equal(events.at(-1)?.event.type, 'run:end');
    } finally {
      proxy.close();
    }
  });

  it('sends the bearer token; without it the server\'s refusal is the error', async () => {
    const dir = workspace();
    const tokenFile = path.join(dir, 'token');
    const { url } = await started(dir, '--token-file', tokenFile);
    const token = fs.readFileSync(tokenFile, 'utf8').trim();
    await assert.rejects(new ServeClient({ url }).list(), (error: unknown) => error instanceof ServeRequestError && error.status === 401 && /Bearer/.test(error.message));
    const id = await submit(url, { path: 'gated.dot' }, token);
    const client = new ServeClient({ url, token });
    assert.deepEqual((await client.list()).map((run) => run.id), [id]);
    await assert.rejects(new ServeClient({ url }).follow(id, () => undefined), (error: unknown) => error instanceof ServeRequestError && error.status === 401);
    const cancelled = await client.cancel(id);
    assert.equal(cancelled.id, id);
    assert.equal(await client.follow(id, () => undefined), 'finished');
    assert.equal((await client.get(id)).status, 'cancelled');
  });

  it('follows `attractor run --serve SOCKET` through a unix: address and answers its gate', async () => {
    const dir = workspace();
    const socketPath = path.join(dir, 'run.sock');
    const child = spawn(process.execPath, [bundledCli(), 'run', 'gated.dot', '--serve', socketPath, '--logs-root', 'run'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve) => child.stderr.on('data', (chunk: Buffer) => chunk.toString().includes('following this run at unix:') && resolve()));
    const client = new ServeClient({ url: `unix:${socketPath}` });
    const [run] = await client.list();
    assert.ok(run);
    const stopping = new AbortController();
    const events: StreamedEvent[] = [];
    const following = client.follow(
      run.id,
      (streamed) => {
        events.push(streamed);
        if (streamed.event.type === 'human:question') void client.answer(run.id, streamed.event.question.id, { kind: 'option', choice: 'Y' });
        // The process exits with its run: stop before the stream's end races the socket's removal.
        if (streamed.event.type === 'run:end') stopping.abort();
      },
      { signal: stopping.signal },
    );
    assert.equal(await following, 'stopped');
    assert.equal(events.at(-1)?.event.type, 'run:end');
    assert.equal(await exited, 0);
  });

  it('refuses an address it cannot speak to', () => {
    assert.throws(() => new ServeClient({ url: 'ftp://example.test' }), /http or https/);
    assert.throws(() => new ServeClient({ url: 'localhost:8474' }), /http or https|not a server address/);
    assert.throws(() => new ServeClient({ url: 'unix:' }), /names the socket/);
  });
});
