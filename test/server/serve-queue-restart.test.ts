// The admission queue outlives the server: `attractor serve --max-runs 1` killed outright (kill -9)
// with submissions waiting, another started on the same logs root and state directory. The queue
// comes back in its order and its runs start as the slot frees; a queued record the server did not
// write itself (dropped under the logs root, or writable by others in the state directory) never runs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { bundledCli } from '../test-bundle';
import { call } from './serve-harness';
import { started, workspaceWith } from './served-in-tests';
import { GATE_FIRST, SLOW } from './admission-scenario';

const QUICK = `digraph quick {
  start [shape=Mdiamond]
  work [shape=parallelogram, tool_command="echo ran >> ran.txt"]
  done [shape=Msquare]
  start -> work -> done
}`;

const FORGED = QUICK.replace('ran.txt', 'forged.txt');

interface Row {
  readonly id: string;
  readonly status: string;
  readonly queuePosition: number | null;
  readonly createdAt: string;
  readonly failureReason?: string;
}

describe('attractor serve: the queue outlives the server', () => {
  it('a server killed with submissions waiting: the next one takes them up in order, cancelled ones stay cancelled, forged ones never run', async () => {
    const root = workspaceWith('attractor-serve-queue-', { 'slow.dot': SLOW, 'quick.dot': QUICK });
    const stateDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-serve-queue-state-')));
    const serveArgs = ['--max-runs', '1', '--max-queued', '5', '--state-dir', stateDir];
    const cwdOf = (name: string): string => {
      fs.mkdirSync(path.join(root, name));
      return path.join(root, name);
    };
    const submitIn = async (url: string, pipeline: string, cwd: string): Promise<Row> => {
      const reply = await call(`${url}/pipelines`, { body: { path: pipeline, cwd } });
      assert.equal(reply.status, 201, JSON.stringify(reply.body));
      return reply.body as unknown as Row;
    };
    const rows = async (url: string): Promise<Map<string, Row>> => new Map(((await call(`${url}/pipelines`)).body.pipelines as Row[]).map((run) => [run.id, run]));
    const until = async (url: string, id: string, holds: (run: Row | undefined) => boolean, what: string): Promise<void> => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const run = (await rows(url)).get(id);
        if (holds(run)) return;
        if (Date.now() > deadline) assert.fail(`pipeline ${id} never ${what}: ${JSON.stringify(run)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const cancel = async (url: string, id: string) => assert.equal((await call(`${url}/pipelines/${id}/cancel`, { method: 'POST' })).status, 202);

    const first = await started(root, ...serveArgs);
    const holder = await submitIn(first.url, '../slow.dot', cwdOf('a'));
    assert.equal(holder.status, 'running');
    const next = await submitIn(first.url, '../slow.dot', cwdOf('b'));
    const then = await submitIn(first.url, '../slow.dot', cwdOf('c'));
    const dropped = await submitIn(first.url, '../quick.dot', cwdOf('x'));
    const last = await submitIn(first.url, '../quick.dot', cwdOf('d'));
    assert.deepEqual([next, then, dropped, last].map((run) => [run.status, run.queuePosition]), [['queued', 1], ['queued', 2], ['queued', 3], ['queued', 4]]);
    await cancel(first.url, dropped.id);
    assert.equal((await rows(first.url)).get(last.id)?.queuePosition, 3);

    // Records this server did not write: one where a committed or shared run directory would put it, one in the state directory that others may write.
    const forgedCwd = cwdOf('f');
    const forgedRecord = (id: string) => JSON.stringify({ id, seq: 0, createdAt: new Date().toISOString(), source: FORGED, cwd: forgedCwd, params: {} });
    const underLogs = crypto.randomUUID();
    fs.mkdirSync(path.join(root, '.attractor-runs', underLogs), { recursive: true });
    fs.writeFileSync(path.join(root, '.attractor-runs', underLogs, 'queued.json'), forgedRecord(underLogs));
    const [queueDir] = fs.readdirSync(path.join(stateDir, 'serve-queue')).map((name) => path.join(stateDir, 'serve-queue', name));
    const opened = crypto.randomUUID();
    fs.writeFileSync(path.join(queueDir as string, `${opened}.json`), forgedRecord(opened), { mode: 0o666 });
    fs.chmodSync(path.join(queueDir as string, `${opened}.json`), 0o666);
    await first.kill();

    // Back in order: the head takes the free slot at once, the rest wait in their places; the cancelled one stays cancelled.
    const second = await started(root, ...serveArgs);
    const restored = await rows(second.url);
    assert.deepEqual(
      [holder, next, then, dropped, last].map(({ id }) => [restored.get(id)?.status, restored.get(id)?.queuePosition]),
      [['interrupted', null], ['running', null], ['queued', 1], ['cancelled', null], ['queued', 2]],
    );
    assert.equal(restored.get(dropped.id)?.failureReason, 'cancelled before it started');
    assert.deepEqual([then, last].map(({ id }) => restored.get(id)?.createdAt), [then.createdAt, last.createdAt], 'a restored submission keeps when it was submitted');
    assert.ok(!restored.has(underLogs) && !restored.has(opened), 'no forged record is listed');
    assert.match(second.stderr(), new RegExp(`queued submission \\S+${opened}\\.json ignored: is writable by others \\(mode 666\\)`));

    // Runs start as the slot frees, in their order.
    await cancel(second.url, next.id);
    await until(second.url, then.id, (run) => run?.status === 'running' && run.queuePosition === null, 'started from the restored queue');
    assert.equal((await rows(second.url)).get(last.id)?.queuePosition, 1);
    await cancel(second.url, then.id);
    await until(second.url, last.id, (run) => run?.status === 'success', 'ran to its end');
    assert.equal(fs.readFileSync(path.join(root, 'd', 'ran.txt'), 'utf8'), 'ran\n');
    await second.kill();

    // Started, a submission is the run directory's: a third server runs nothing again.
    const third = await started(root, ...serveArgs);
    const listed = await rows(third.url);
    assert.deepEqual([dropped, last].map(({ id }) => listed.get(id)?.status), ['cancelled', 'success']);
    assert.ok([...listed.values()].every((run) => run.status !== 'queued' && run.status !== 'running'), JSON.stringify([...listed.values()]));
    assert.equal(fs.readFileSync(path.join(root, 'd', 'ran.txt'), 'utf8'), 'ran\n', 'ran once');
    assert.deepEqual(fs.readdirSync(path.join(root, 'x')), [], 'the cancelled submission never ran');
    assert.deepEqual(fs.readdirSync(forgedCwd), [], 'no forged record ran');
  });

  it('an answer held while every slot was taken outlives the server: the next one resumes the run with it, the gate is not asked again', async () => {
    const root = workspaceWith('attractor-serve-held-', { 'slow.dot': SLOW, 'gated.dot': GATE_FIRST });
    const stateDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-serve-held-state-')));
    const serveArgs = ['--max-runs', '1', '--state-dir', stateDir];
    const cwdOf = (name: string): string => {
      fs.mkdirSync(path.join(root, name));
      return path.join(root, name);
    };
    const row = async (url: string, id: string): Promise<Row & { pendingQuestions: number }> => (await call(`${url}/pipelines/${id}`)).body as unknown as Row & { pendingQuestions: number };
    const until = async (url: string, id: string, holds: (run: Row & { pendingQuestions: number }) => boolean, what: string): Promise<Row & { pendingQuestions: number }> => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const run = await row(url, id);
        if (holds(run)) return run;
        if (Date.now() > deadline) assert.fail(`pipeline ${id} never ${what}: ${JSON.stringify(run)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    const first = await started(root, ...serveArgs);
    const gated = (await call(`${first.url}/pipelines`, { body: { path: '../gated.dot', cwd: cwdOf('g') } })).body.id as string;
    await until(first.url, gated, (run) => run.pendingQuestions === 1, 'asked its question');
    const [question] = (await call(`${first.url}/pipelines/${gated}/questions`)).body.questions as Array<{ id: string }>;
    const slow = (await call(`${first.url}/pipelines`, { body: { path: '../slow.dot', cwd: cwdOf('s') } })).body as unknown as Row;
    assert.equal(slow.status, 'running', 'the slow run takes the only slot');
    const held = await call(`${first.url}/pipelines/${gated}/questions/${encodeURIComponent(question?.id as string)}/answer`, { body: { choice: 'G' } });
    assert.deepEqual([held.status, held.body], [202, { answered: question?.id, queuePosition: 1 }]);
    const [queueDir] = fs.readdirSync(path.join(stateDir, 'serve-queue')).map((name) => path.join(stateDir, 'serve-queue', name));
    const answers = () => fs.readdirSync(queueDir as string).filter((name) => name.endsWith('.answer.json'));
    assert.deepEqual(answers(), [`${gated}.answer.json`], 'the held answer is on disk, in the state directory, before the 202');
    assert.equal(fs.statSync(path.join(queueDir as string, `${gated}.answer.json`)).mode & 0o777, 0o600);
    await first.kill();

    // The slow run was walked by the killed server: interrupted, it holds no slot. The answered run
    // goes on from its checkpoint with the answer it was given, and its gate asks no one again.
    const second = await started(root, ...serveArgs);
    const ended = await until(second.url, gated, (run) => (run.status !== 'running' && run.status !== 'queued') || run.pendingQuestions > 0, 'ended');
    assert.equal(ended.status, 'success', `its gate was asked again, or the run did not go on: ${JSON.stringify(ended)}`);
    assert.equal(fs.readFileSync(path.join(root, 'g', 'built.txt'), 'utf8'), 'built\n');
    assert.equal((await row(second.url, slow.id)).status, 'interrupted');
    const trace = fs.readFileSync(path.join(root, '.attractor-runs', gated, 'trace.jsonl'), 'utf8');
    assert.match(trace, /"node_id":"ready","status":"success"/, 'the gate took the held answer');
    assert.deepEqual(answers(), [], 'delivered, the answer is spent');
    await second.kill();

    // Delivered, the answer is spent: a third server resumes nothing.
    const third = await started(root, ...serveArgs);
    assert.equal((await row(third.url, gated)).status, 'success');
    assert.equal((await row(third.url, slow.id)).status, 'interrupted');
  });

  it('refuses to start on a state directory others may write (inside a root or the logs root, or writable by group or others), and on a queue another live server keeps', async () => {
    const root = workspaceWith('attractor-serve-state-refused-', {});
    const open = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-serve-state-open-')));
    fs.chmodSync(open, 0o777);
    const cases: Array<[string[], RegExp]> = [
      [['--state-dir', path.join(root, 'state')], /state directory .*state lies inside .*attractor-serve-state-refused-\w+, which others may write to/],
      [['--logs-root', path.join(os.tmpdir(), path.basename(root) + '-logs'), '--state-dir', path.join(os.tmpdir(), path.basename(root) + '-logs', 'state')], /lies inside .*-logs, which others may write to/],
      [['--state-dir', open], /state directory .* is writable by others \(mode 777\): its queued submissions could be forged/],
    ];
    // A second server on the same logs root would take up the first one's queue at its restart and start it twice.
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-serve-state-kept-'));
    const live = await started(root, '--state-dir', stateDir);
    const keptElsewhere = /another attractor serve \(pid \d+ on .*\) keeps the queue of this logs root .*one server per logs root/;
    cases.push([['--state-dir', stateDir], keptElsewhere]);
    // The same logs root named through a link is the same queue.
    const link = path.join(os.tmpdir(), `${path.basename(root)}-link`);
    fs.symlinkSync(root, link);
    cases.push([['--state-dir', stateDir, '--logs-root', path.join(link, '.attractor-runs')], keptElsewhere]);
    for (const [args, refusal] of cases) {
      const result = spawnSync(process.execPath, [bundledCli(), 'serve', '--port', '0', ...args], { cwd: root, encoding: 'utf8', timeout: 30_000 });
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, refusal);
      assert.doesNotMatch(result.stdout, /listening/);
    }
    // Stopped, it lets the next server keep the queue.
    assert.equal(await live.stop(), 0);
    const next = await started(root, '--state-dir', stateDir);
    assert.ok(next.alive());
  });
});
