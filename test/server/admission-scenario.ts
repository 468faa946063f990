// Admission of `attractor serve --max-runs 2 --max-queued 1`, walked here or on Restate's workers:
// runs waiting at a human gate hold no slot, a submission beyond the slots waits in the queue (listed
// with its place), one beyond the queue is refused with 503 + Retry-After, and a run whose gate is
// answered while every slot is taken goes on only when its turn comes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pipelineList } from '../../host/protocol/serve-schemas';
import { call } from './serve-harness';

/** Waits at its gate first; answered "Go", it writes built.txt. */
export const GATE_FIRST = `digraph gate_first {
  start [shape=Mdiamond]
  ready [shape=hexagon, label="Go?"]
  build [shape=parallelogram, tool_command="echo built > built.txt"]
  done [shape=Msquare]
  start -> ready
  ready -> build [label="[G] Go"]
  build -> done
}`;

/** A run that holds its slot for two minutes. */
export const SLOW = `digraph slow {
  start [shape=Mdiamond]
  wait [shape=parallelogram, tool_command="sleep 120"]
  done [shape=Msquare]
  start -> wait -> done
}`;

interface Row {
  readonly id: string;
  readonly status: string;
  readonly queuePosition: number | null;
  readonly pendingQuestions: number;
  readonly failureReason?: string;
}

/** Runs the scenario against the server at `url`, whose root is `root`. */
export async function admissionScenario(url: string, root: string): Promise<void> {
  fs.writeFileSync(path.join(root, 'gate-first.dot'), GATE_FIRST);
  fs.writeFileSync(path.join(root, 'slow.dot'), SLOW);
  const submit = async (pipeline: string) => {
    const cwd = fs.mkdtempSync(path.join(root, 'run-'));
    const reply = await call(`${url}/pipelines`, { body: { path: path.join(root, pipeline), cwd } });
    return { reply, cwd, id: reply.body.id as string };
  };
  const row = async (id: string): Promise<Row> => (await call(`${url}/pipelines/${id}`)).body as unknown as Row;
  const until = async (id: string, holds: (run: Row) => boolean, what: string): Promise<Row> => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const run = await row(id);
      if (holds(run)) return run;
      if (Date.now() > deadline) assert.fail(`pipeline ${id} never ${what}: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const questionOf = async (id: string): Promise<string> => {
    await until(id, (run) => run.pendingQuestions === 1, 'asked its question');
    const { body } = await call(`${url}/pipelines/${id}/questions`);
    return (body.questions as Array<{ id: string }>)[0]?.id as string;
  };
  const cancel = async (id: string) => assert.equal((await call(`${url}/pipelines/${id}/cancel`, { method: 'POST' })).status, 202);

  // Two runs wait at their gates: they hold no slot, so two more start at once.
  const gated = [await submit('gate-first.dot'), await submit('gate-first.dot')];
  const questions = await Promise.all(gated.map(({ id }) => questionOf(id)));
  const slow = [await submit('slow.dot'), await submit('slow.dot')];
  for (const { reply } of slow) {
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    assert.equal(reply.body.status, 'running');
    assert.equal(reply.body.queuePosition, null);
  }

  // Both slots taken: the next submission waits, listed with its place; one more than --max-queued is refused.
  const queued = await submit('slow.dot');
  assert.equal(queued.reply.status, 201, JSON.stringify(queued.reply.body));
  assert.deepEqual([queued.reply.body.status, queued.reply.body.queuePosition], ['queued', 1]);
  const list = (await call(`${url}/pipelines`)).body;
  const checked = pipelineList(list, '');
  assert.ok(checked.ok, `GET /pipelines outside its documented schema: ${checked.ok ? '' : checked.error}`);
  const listed = list.pipelines as Row[];
  assert.deepEqual(
    listed.filter((run) => [queued.id, slow[0]?.id].includes(run.id)).map((run) => [run.id, run.status, run.queuePosition]),
    [[slow[0]?.id, 'running', null], [queued.id, 'queued', 1]],
  );
  const refused = await submit('slow.dot');
  assert.equal(refused.reply.status, 503, JSON.stringify(refused.reply.body));
  assert.equal(refused.reply.headers.get('retry-after'), '10');
  assert.match(String(refused.reply.body.error), /--max-queued/);

  // A gate answered while every slot is taken: the answer is taken, the run waits behind the queued submission.
  const [first, second] = gated;
  const answer = await call(`${url}/pipelines/${first?.id}/questions/${encodeURIComponent(questions[0] as string)}/answer`, { body: { choice: 'G' } });
  assert.equal(answer.status, 202, JSON.stringify(answer.body));
  assert.deepEqual(answer.body, { answered: questions[0], queuePosition: 2 });
  const waiting = await row(first?.id as string);
  assert.deepEqual([waiting.status, waiting.queuePosition, waiting.pendingQuestions], ['running', 2, 0]);
  const again = await call(`${url}/pipelines/${first?.id}/questions/${encodeURIComponent(questions[0] as string)}/answer`, { body: { choice: 'G' } });
  assert.equal(again.status, 404, 'a held answer is the only one');

  // A slot frees: the queued submission starts, the answered run moves up.
  await cancel(slow[0]?.id as string);
  await until(queued.id, (run) => run.status === 'running' && run.queuePosition === null, 'started from the queue');
  assert.equal((await row(first?.id as string)).queuePosition, 1);

  // A queued submission cancelled never starts.
  const late = await submit('slow.dot');
  assert.deepEqual([late.reply.body.status, late.reply.body.queuePosition], ['queued', 2]);
  await cancel(late.id);
  const dropped = await row(late.id);
  assert.deepEqual([dropped.status, dropped.failureReason, dropped.queuePosition], ['cancelled', 'cancelled before it started', null]);
  assert.equal(fs.readdirSync(late.cwd).length, 0, 'the cancelled submission never ran');

  // Another slot frees: the answered run goes on to its end.
  assert.ok(!fs.existsSync(path.join(first?.cwd as string, 'built.txt')), 'the answered run waited for its slot');
  await cancel(queued.id);
  await until(first?.id as string, (run) => run.status === 'success', 'finished');
  assert.equal(fs.readFileSync(path.join(first?.cwd as string, 'built.txt'), 'utf8'), 'built\n');

  // With a slot free and nobody waiting, an answer goes through at once.
  const direct = await call(`${url}/pipelines/${second?.id}/questions/${encodeURIComponent(questions[1] as string)}/answer`, { body: { choice: 'G' } });
  assert.deepEqual([direct.status, direct.body], [200, { answered: questions[1] }]);
  await until(second?.id as string, (run) => run.status === 'success', 'finished');
  await cancel(slow[1]?.id as string);
}
