// VS Code attached to `attractor serve`: the Runs view's server model and a remote run followed into
// graph-view messages, its gates answered over HTTP. The real server process on 127.0.0.1.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HumanQuestion } from '../../engine';
import { ServeClient } from '../../host/serve/serve-client';
import { followRemoteRun } from '../../extension/remote-run';
import { describeRemoteRun, remoteRunLabel, ServerRuns } from '../../extension/remote-runs-model';
import { parseExtensionMessage, type ExtensionToWebviewMessage } from '../../host/protocol/webview';
import { gated, readEvents, type Served } from '../server/serve-harness';
import { workspaceWith, started, submit } from '../server/served-in-tests';

async function startedWithClient(): Promise<{ server: Served; client: ServeClient }> {
  const server = await started(workspaceWith('remote-run-', { 'gated.dot': gated }));
  return { server, client: new ServeClient({ url: server.url }) };
}

describe('VS Code attached to attractor serve', () => {
  it('the server\'s runs: listed with their gate waiting, refreshed only on change, unreachable with the reason', async () => {
    const { server, client } = await startedWithClient();
    let changes = 0;
    const runs = new ServerRuns(client, () => changes++);
    await runs.refresh();
    assert.deepEqual(runs.state, { kind: 'listed', runs: [] });
    const id = await submit(server.url, { path: 'gated.dot' });
    await readEvents(`${server.url}/pipelines/${id}/events`, { until: (event) => event.type === 'human:question' });
    await runs.refresh();
    await runs.refresh();
    assert.equal(changes, 1, 'an unchanged list is not shown again');
    const [run] = runs.state.kind === 'listed' ? runs.state.runs : [];
    assert.ok(run);
    assert.equal(remoteRunLabel(run), 'shipit');
    assert.equal(describeRemoteRun(run), 'running · at gate · 1 question waiting');

    await server.stop();
    await runs.refresh();
    assert.equal(runs.state.kind, 'unreachable');
    assert.match(runs.state.kind === 'unreachable' ? runs.state.problem : '', /ECONNREFUSED/);
    assert.equal(changes, 2);
  });

  it('a remote run drives the graph view; its gate is asked here and the answer goes over HTTP', async () => {
    const { server, client } = await startedWithClient();
    const id = await submit(server.url, { path: 'gated.dot' });
    const posted: ExtensionToWebviewMessage[] = [];
    const asked: HumanQuestion[] = [];
    const ending = await followRemoteRun(
      client,
      id,
      {
        post: (message) => posted.push(message),
        ask: (question) => {
          asked.push(question);
          return Promise.resolve({ kind: 'option', choice: 'Y' });
        },
        onAnswerRefused: (_question, reason) => assert.fail(reason),
      },
      new AbortController().signal,
    );
    assert.equal(ending, 'finished');
    assert.deepEqual(asked.map((question) => [question.nodeId, question.options.map((option) => option.key)]), [['gate', ['Y', 'N']]]);
    for (const message of posted) assert.ok(parseExtensionMessage(message).ok, JSON.stringify(message));
    assert.deepEqual(posted.filter((m) => m.type === 'humanGate' || m.type === 'humanGateClosed').map((m) => m.type), ['humanGate', 'humanGateClosed']);
    assert.ok(posted.some((m) => m.type === 'traceEntries'));
    const last = posted.filter((m) => m.type === 'graphState').at(-1);
    assert.ok(last?.type === 'graphState' && last.runStatus === 'succeeded', JSON.stringify(last));
    assert.equal((await client.get(id)).status, 'success');
  });

  it('a gate answered elsewhere stops the question here; stopping the follow leaves the run running', async () => {
    const { server, client } = await startedWithClient();
    const id = await submit(server.url, { path: 'gated.dot' });
    const stop = new AbortController();
    let withdrawn: (() => void) | undefined;
    const questionWithdrawn = new Promise<void>((resolve) => (withdrawn = resolve));
    const following = followRemoteRun(
      client,
      id,
      {
        post: () => undefined,
        ask: (question, signal) => {
          // Someone else (the terminal, another editor) answers first.
          void client.answer(id, question.id, { kind: 'option', choice: 'N' });
          return new Promise((_resolve, reject) => signal.addEventListener('abort', () => {
            reject(signal.reason as Error);
            withdrawn?.();
          }));
        },
      },
      stop.signal,
    );
    await questionWithdrawn;
    stop.abort();
    assert.equal(await following, 'stopped');
    assert.equal((await client.get(id)).status, 'running', 'N loops back to build and asks again');
    await client.cancel(id);
  });
});
