// `attractor serve --on restate://…`: runs submitted over HTTP are walked by `attractor worker`s, and
// the rest of the API follows them (status, SSE events from the workers' events file, questions answered
// through the durable gate, cancel through Restate's). VS Code's own client follows and answers them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { HumanQuestion } from '../../engine';
import { ServeClient } from '../../host/serve/serve-client';
import { DurableRunClient } from '../../host/restate/restate-client';
import { followRemoteRun } from '../../extension/remote-run';
import type { ExtensionToWebviewMessage } from '../../host/protocol/webview';
import { call, readEvents, serve, type Served } from '../server/serve-harness';
import type { Cluster } from './restate-cluster';
import { startGatedCluster, submitGated } from './gated-pipeline';
import { admissionScenario } from '../server/admission-scenario';

/** A gate inside a fan-out branch (RS4). */
const BRANCH_GATE = `digraph branched {
  start [shape=Mdiamond]
  fan [shape=component, join_policy=wait_all]
  lint [shape=parallelogram, tool_command="echo lint >> steps.log"]
  approve [shape=hexagon, label="Approve the branch?"]
  approved [shape=parallelogram, tool_command="echo approved >> steps.log"]
  join [shape=tripleoctagon]
  exit [shape=Msquare]
  start -> fan
  fan -> lint -> join
  fan -> approve
  approve -> approved [label="[Y] Yes"]
  approved -> join
  join -> exit
}
`;

let dir: string;
let shared: string;
let cluster: Cluster;
let server: Served;
let client: ServeClient;

before(async () => {
  ({ dir, shared, cluster } = await startGatedCluster('attractor-serve-restate-'));
  server = await serve(shared, '--on', cluster.on);
  client = new ServeClient({ url: server.url });
});
after(async () => {
  await server?.stop();
  cluster?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const submitted = () => submitGated(server.url, shared);

async function waitingQuestion(id: string): Promise<HumanQuestion> {
  for (;;) {
    const [question] = await client.questions(id);
    if (question) return question;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('VS Code follows a run that the workers walk and answers its gate through the server; the API reports it throughout', async () => {
  const { id, cwd } = await submitted();
  const posted: ExtensionToWebviewMessage[] = [];
  const asked: HumanQuestion[] = [];
  let whileAsked: Record<string, unknown> = {};
  const ending = await followRemoteRun(
    client,
    id,
    {
      post: (message) => posted.push(message),
      ask: async (question) => {
        asked.push(question);
        const [status, breakpoints, graph, context, checkpoint] = await Promise.all([
          client.get(id),
          call(`${server.url}/pipelines/${id}/breakpoints`, { method: 'PUT', body: { nodes: ['ship'] } }),
          fetch(`${server.url}/pipelines/${id}/graph`),
          client.context(id),
          call(`${server.url}/pipelines/${id}/checkpoint`),
        ]);
        whileAsked = { status, breakpoints, graph: await graph.text(), context, checkpoint: checkpoint.body };
        return { kind: 'option', choice: 'Y' };
      },
      onAnswerRefused: (_question, reason) => assert.fail(reason),
    },
    AbortSignal.timeout(120_000),
  );
  assert.equal(ending, 'finished');
  assert.equal(fs.readFileSync(path.join(cwd, 'steps.log'), 'utf8'), 'prepare\nship\n');
  assert.deepEqual(asked.map((question) => [question.nodeId, question.options.map((option) => option.key)]), [['review', ['Y', 'N']]]);
  assert.deepEqual(posted.filter((m) => m.type === 'humanGate' || m.type === 'humanGateClosed').map((m) => m.type), ['humanGate', 'humanGateClosed']);
  const last = posted.filter((m) => m.type === 'graphState').at(-1);
  assert.ok(last?.type === 'graphState' && last.runStatus === 'succeeded', JSON.stringify(last));

  const { status, breakpoints, graph, context, checkpoint: atGate } = whileAsked as { status: { status: string; pendingQuestions: number; completedNodes: string[] }; breakpoints: { status: number; body: { error: string } }; graph: string; context: unknown; checkpoint: { context: unknown } };
  assert.equal(status.status, 'running');
  assert.equal(status.pendingQuestions, 1);
  assert.deepEqual(status.completedNodes, ['start', 'prepare']);
  assert.equal(breakpoints.status, 409);
  assert.match(breakpoints.body.error, /runs on Restate's workers/);
  assert.match(graph, /<svg/);
  // The client's checked record has no prototype (a key named __proto__ stays a key): compared by its entries.
  assert.deepEqual({ ...(context as object) }, atGate.context);

  const summary = await client.get(id);
  assert.equal(summary.status, 'success');
  // One id: the server's is Restate's workflow key, the engine's run id and the run directory's name.
  assert.equal(summary.runId, id);
  assert.deepEqual(await new DurableRunClient(cluster.ingress, id).result(), { kind: 'finished', status: 'success' });
  assert.equal(summary.graphName, 'gated');
  assert.equal(summary.logsRoot, path.join(shared, '.attractor-runs', id));
  const checkpoint = (await call(`${server.url}/pipelines/${id}/checkpoint`)).body as { status: string; completedNodes: string[] };
  assert.equal(checkpoint.status, 'success');
  assert.deepEqual(checkpoint.completedNodes, ['start', 'prepare', 'review', 'ship', 'exit']);
  const events = await readEvents(`${server.url}/pipelines/${id}/events`);
  assert.equal(events.filter((event) => event.type === 'run:start').length, 1, 'one run:start, however many steps the workers took');
  assert.deepEqual(events.at(-1)?.data, { type: 'run:end', status: 'success', durationMs: events.at(-1)?.data.durationMs });
});

test("a stale answer is refused; the server's cancel is Restate's, and the run directory is left cancelled and resumable", async () => {
  const { id } = await submitted();
  const question = await waitingQuestion(id);
  assert.equal((await call(`${server.url}/pipelines/${id}/questions/gate-0/answer`, { body: { choice: 'Y' } })).status, 404);
  const cancelled = await call(`${server.url}/pipelines/${id}/cancel`, { body: {} });
  assert.equal(cancelled.status, 202, JSON.stringify(cancelled.body));
  const events = await readEvents(`${server.url}/pipelines/${id}/events`);
  assert.equal(events.at(-1)?.type, 'run:end');
  assert.equal(events.at(-1)?.data.status, 'cancelled');
  const summary = await client.get(id);
  assert.equal(summary.status, 'cancelled');
  assert.equal(summary.pendingQuestions, 0);
  const checkpoint = (await call(`${server.url}/pipelines/${id}/checkpoint`)).body as { status: string; completedNodes: string[] };
  assert.equal(checkpoint.status, 'cancelled');
  assert.deepEqual(checkpoint.completedNodes, ['start', 'prepare']);
  assert.equal((await call(`${server.url}/pipelines/${id}/questions/${encodeURIComponent(question.id)}/answer`, { body: { choice: 'Y' } })).status, 404);
});

test("a gate inside a fan-out branch is listed and answered through the server like the main walk's", async () => {
  const cwd = fs.mkdtempSync(path.join(shared, 'branch-'));
  const reply = await call(`${server.url}/pipelines`, { body: { dot: BRANCH_GATE, cwd } });
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  const id = reply.body.id as string;
  const question = await waitingQuestion(id);
  assert.equal(question.nodeId, 'approve');
  await client.answer(id, question.id, { kind: 'option', choice: 'Y' });
  const events = await readEvents(`${server.url}/pipelines/${id}/events`);
  assert.deepEqual(events.filter((event) => event.type === 'human:question' || event.type === 'human:answer').map((event) => [event.type, (event.data.scope as { kind: string }).kind]), [['human:question', 'branch'], ['human:answer', 'branch']]);
  assert.equal((await client.get(id)).status, 'success');
  assert.equal(fs.readFileSync(path.join(cwd, 'steps.log'), 'utf8').split('\n').filter((line) => line === 'approved').length, 1);
});

test('a pipeline with errors is refused before it reaches Restate; the server refuses local execution options with --on', async () => {
  const refused = await call(`${server.url}/pipelines`, { body: { dot: 'digraph broken { start [shape=Mdiamond] }' } });
  assert.equal(refused.status, 422);
  assert.match(refused.body.error as string, /error\(s\); the pipeline was not started/);
  await assert.rejects(serve(shared, '--on', cluster.on, '--scripted', 'answers.json'), /give --scripted to `attractor worker`/);
});

test('a server that stops lets go of the runs on Restate (they go on) and exits 0', async () => {
  const other = await serve(shared, '--on', cluster.on);
  const { id } = await submitGated(other.url, shared);
  await readEvents(`${other.url}/pipelines/${id}/events`, { until: (event) => event.type === 'human:question' });
  // A server waiting on a run it no longer follows would never exit.
  const exited = await Promise.race([other.stop(), new Promise((resolve) => setTimeout(() => resolve('still running after 120 s'), 120_000).unref())]);
  if (exited !== 0) await other.kill();
  assert.equal(exited, 0);
});

test('admission on Restate: runs suspended at their gates hold no slot; submissions past the slots wait in the queue, answered runs behind them', async () => {
  const admitting = await serve(shared, '--on', cluster.on, '--max-runs', '2', '--max-queued', '1');
  try {
    await admissionScenario(admitting.url, shared);
  } finally {
    await admitting.stop();
  }
});
