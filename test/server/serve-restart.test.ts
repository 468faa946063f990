// Runs outlive the server: a server killed outright, and another started on the same logs root.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { call, gated, readEvents } from './serve-harness';
import { started, submit, workspaceWith } from './served-in-tests';

const quick = `digraph quick {
  start [shape=Mdiamond]
  work [shape=parallelogram, tool_command="echo worked > worked.txt"]
  done [shape=Msquare]
  start -> work -> done
}`;

interface Listed {
  readonly id: string;
  readonly status: string;
  readonly completedNodes: string[];
  readonly createdAt: string;
}

describe('attractor serve: runs outlive the server', () => {
  it('a restarted server lists the runs it left (ended and interrupted), serves their graph, trace and files, and resumes the interrupted one', async () => {
    const dir = workspaceWith('attractor-serve-restart-', { 'gated.dot': gated, 'quick.dot': quick });
    const first = await started(dir);
    const done = await submit(first.url, { path: 'quick.dot' });
    const ended = await readEvents(`${first.url}/pipelines/${done}/events`);
    assert.equal(ended.at(-1)?.data.status, 'success');
    const waiting = await submit(first.url, { path: 'gated.dot' });
    await readEvents(`${first.url}/pipelines/${waiting}/events`, { until: (event) => event.type === 'human:question' });
    const before = (await call(`${first.url}/pipelines/${waiting}`)).body as unknown as Listed;
    await first.kill();

    const restartedAt = Date.now();
    const second = await started(dir);
    const listed = (await call(`${second.url}/pipelines`)).body.pipelines as Listed[];
    assert.deepEqual(
      listed.map((run) => [run.id, run.status]),
      [
        [done, 'success'],
        [waiting, 'interrupted'],
      ],
      'oldest first, each with its final or interrupted state',
    );
    const interrupted = listed[1] as Listed;
    assert.ok(Date.parse(interrupted.createdAt) >= Date.parse(before.createdAt) && Date.parse(interrupted.createdAt) < restartedAt, 'a restored run keeps when it started (its engine did)');
    assert.deepEqual(interrupted.completedNodes, ['start', 'build']);

    const svg = await (await fetch(`${second.url}/pipelines/${done}/graph`)).text();
    assert.match(svg, /id="node:work"/);
    assert.match(svg, /fill="#c8e6c9"/, 'the restored run draws its finished nodes by status');
    assert.match(await (await fetch(`${second.url}/pipelines/${waiting}/source`)).text(), /digraph shipit/);
    const trace = (await call(`${second.url}/pipelines/${done}/trace`)).body.records as { node_id: string }[];
    assert.deepEqual(trace.map((record) => record.node_id), ['start', 'work', 'done']);
    const visit = await call(`${second.url}/pipelines/${done}/visit?iteration=0&node=work&visit=1`);
    assert.equal(visit.status, 200, JSON.stringify(visit.body));
    assert.equal(visit.body.nodeId, 'work');
    assert.match(JSON.stringify(visit.body), /worked\.txt/, "the visit's file changes come from the run directory");
    assert.equal((await call(`${second.url}/pipelines/${done}/visit?iteration=0&node=a%20b`)).status, 400);
    // The first server stored the ended run's events in its run directory: the stream is the same, after a Last-Event-ID too.
    assert.deepEqual(await readEvents(`${second.url}/pipelines/${done}/events`), ended);
    assert.deepEqual(await readEvents(`${second.url}/pipelines/${done}/events`, { lastEventId: 5 }), ended.slice(5));
    assert.equal((await call(`${second.url}/pipelines/${done}`)).body.lastEventId, ended.length);
    assert.equal((await readEvents(`${second.url}/pipelines/${waiting}/events`)).length, 0, "an interrupted run's events lived in the server that was killed");

    assert.equal((await call(`${second.url}/pipelines/${done}/resume`, { body: {} })).status, 409, 'a finished run does not resume');
    const resumed = await call(`${second.url}/pipelines/${waiting}/resume`, { body: {} });
    assert.equal(resumed.status, 202, JSON.stringify(resumed.body));
    assert.equal(resumed.body.status, 'running');
    await readEvents(`${second.url}/pipelines/${waiting}/events`, { until: (event) => event.type === 'human:question' });
    const questions = (await call(`${second.url}/pipelines/${waiting}/questions`)).body.questions as { id: string }[];
    const answered = await call(`${second.url}/pipelines/${waiting}/questions/${encodeURIComponent(questions[0]?.id ?? '')}/answer`, { body: { choice: 'Y' } });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    const rest = await readEvents(`${second.url}/pipelines/${waiting}/events`);
    assert.equal(rest.at(-1)?.data.status, 'success');
    const again = (await call(`${second.url}/pipelines/${waiting}`)).body as unknown as Listed;
    assert.equal(again.status, 'success');
    assert.equal(again.createdAt, interrupted.createdAt);
    assert.equal(fs.existsSync(path.join(dir, 'built.txt')), true);
    assert.equal((await call(`${second.url}/pipelines/${waiting}/resume`, { body: {} })).status, 409, 'resumed once');
  });

  it('a server killed the moment an ended run\'s event stream ended: the restarted server replays those events', async () => {
    const dir = workspaceWith('attractor-serve-restart-', { 'quick.dot': quick });
    const first = await started(dir);
    const done = await submit(first.url, { path: 'quick.dot' });
    const ended = await readEvents(`${first.url}/pipelines/${done}/events`);
    await first.kill();

    const second = await started(dir);
    assert.deepEqual(await readEvents(`${second.url}/pipelines/${done}/events`), ended, 'a stream ends only once its events are stored');
  });

  it('a run cancelled by a stopping server resumes on the next one; a run waiting at its gate holds none of the --max-runs slots', async () => {
    const dir = workspaceWith('attractor-serve-restart-', { 'gated.dot': gated });
    // One live engine per working directory: the two runs work in two.
    for (const sub of ['a', 'b']) fs.mkdirSync(path.join(dir, sub));
    const first = await started(dir);
    const id = await submit(first.url, { path: '../gated.dot', cwd: 'a' });
    const other = await submit(first.url, { path: '../gated.dot', cwd: 'b' });
    await readEvents(`${first.url}/pipelines/${id}/events`, { until: (event) => event.type === 'human:question' });
    await readEvents(`${first.url}/pipelines/${other}/events`, { until: (event) => event.type === 'human:question' });
    assert.equal(await first.stop(), 0);

    const second = await started(dir, '--max-runs', '1');
    const statuses = ((await call(`${second.url}/pipelines`)).body.pipelines as Listed[]).map((run) => run.status);
    assert.deepEqual(statuses, ['cancelled', 'cancelled']);
    assert.equal((await call(`${second.url}/pipelines/${id}/resume`, { body: {} })).status, 202);
    await readEvents(`${second.url}/pipelines/${id}/events`, { until: (event) => event.type === 'human:question' });
    assert.equal((await call(`${second.url}/pipelines/${other}/resume`, { body: {} })).status, 202, 'a run waiting at its gate holds no slot');
    assert.equal((await call(`${second.url}/pipelines/nope/resume`, { body: {} })).status, 404);
  });
});
