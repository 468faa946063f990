// "Run pipeline" without the debugger: the real engine, graph-view messages, a gate answered by `ask`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { resolveDebugConfiguration } from '../../extension/debug-configuration';
import { runLocally } from '../../extension/local-run';
import { defaultSettings } from '../../extension/settings';
import type { HumanQuestion } from '../../engine';
import { parseExtensionMessage, type ExtensionToWebviewMessage } from '../../host/protocol/webview';

const examples = path.resolve(__dirname, '..', '..', 'examples');

/** The walkthrough's example as shipped: its script also holds answers for the gate. */
function exampleCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-run-'));
  for (const name of ['human-review.dot', 'human-review.scripted.json']) fs.copyFileSync(path.join(examples, name), path.join(dir, name));
  return dir;
}

test('the walkthrough example asks its gate of the person (the demo backend answers LLM nodes only); the answer routes the run; the question reaches the view once, through ask', async () => {
  const dir = exampleCopy();
  const posted: ExtensionToWebviewMessage[] = [];
  const asked: HumanQuestion[] = [];
  const outcome = await runLocally(
    { program: path.join(dir, 'human-review.dot'), backend: 'scripted', scripted: path.join(dir, 'human-review.scripted.json'), logsRoot: path.join(dir, 'run') },
    {
      post: (message) => posted.push(message),
      ask: async (question) => {
        asked.push(question);
        return { kind: 'option', choice: 'A' };
      },
    },
    new AbortController().signal,
  );
  assert.equal(outcome.kind, 'ran');
  assert.ok(outcome.kind === 'ran' && outcome.status === 'success', JSON.stringify(outcome));
  assert.deepEqual(asked.map((q) => [q.nodeId, q.options.map((o) => o.key)]), [['review', ['A', 'R']]]);
  for (const message of posted) assert.ok(parseExtensionMessage(message).ok, JSON.stringify(message));
  assert.ok(!posted.some((m) => m.type === 'humanGate'), 'ask shows the question; the run does not post it a second time');
  assert.ok(posted.some((m) => m.type === 'humanGateClosed'));
  const last = posted.filter((m) => m.type === 'graphState').at(-1);
  assert.ok(last?.type === 'graphState' && last.runStatus === 'succeeded');
  assert.ok(fs.existsSync(path.join(dir, 'published.md')), 'tool steps ran in the pipeline folder');
});

test('gateAnswers "script" answers gates from the script first (tests, CI: no person); a bad backend or gateAnswers is refused with the reason', async () => {
  const dir = exampleCopy();
  const outcome = await runLocally(
    { program: path.join(dir, 'human-review.dot'), backend: 'scripted', scripted: path.join(dir, 'human-review.scripted.json'), gateAnswers: 'script', logsRoot: path.join(dir, 'run') },
    { post: () => undefined, ask: () => Promise.reject(new Error('nobody should be asked')) },
    new AbortController().signal,
  );
  assert.ok(outcome.kind === 'ran' && outcome.status === 'success', JSON.stringify(outcome));

  const refused = await runLocally({ program: path.join(dir, 'human-review.dot'), backend: 'scripted', logsRoot: path.join(dir, 'run2') }, { post: () => undefined, ask: () => Promise.reject(new Error('unused')) }, new AbortController().signal);
  assert.equal(refused.kind, 'refused');
  assert.match(refused.kind === 'refused' ? refused.reason : '', /needs "scripted"/);
  const badChoice = await runLocally({ program: path.join(dir, 'human-review.dot'), scripted: path.join(dir, 'human-review.scripted.json'), gateAnswers: 'always' as 'ask', logsRoot: path.join(dir, 'run3') }, { post: () => undefined, ask: () => Promise.reject(new Error('unused')) }, new AbortController().signal);
  assert.match(badChoice.kind === 'refused' ? badChoice.reason : '', /"gateAnswers" must be "ask" or "script"/);
});

test('an opened example runs in a scratch directory inside its run directory, unless the configuration sets cwd', async () => {
  const examples = exampleCopy();
  const program = path.join(examples, 'human-review.dot');
  const context = { activeProgram: program, settings: defaultSettings, trusted: true, fileExists: (file: string) => fs.existsSync(file), now: new Date('2026-12-01T00:00:00.000Z'), examplesDirectory: examples };
  const resolution = resolveDebugConfiguration({}, context);
  assert.ok(resolution.ok && resolution.scratchDirectory !== undefined);
  const { configuration, scratchDirectory } = resolution;
  assert.equal(configuration.cwd, scratchDirectory);
  assert.equal(path.dirname(scratchDirectory), configuration.logsRoot);
  fs.mkdirSync(scratchDirectory, { recursive: true });
  const outcome = await runLocally({ ...configuration, gateAnswers: 'script', logsRoot: configuration.logsRoot ?? '' }, { post: () => undefined, ask: () => Promise.reject(new Error('scripted')) }, new AbortController().signal);
  assert.ok(outcome.kind === 'ran' && outcome.status === 'success', JSON.stringify(outcome));
  assert.deepEqual(fs.readdirSync(examples).sort(), ['.attractor-runs', 'human-review.dot', 'human-review.scripted.json'], 'nothing written beside the example');
  assert.ok(fs.existsSync(path.join(scratchDirectory, 'published.md')));

  const chosen = resolveDebugConfiguration({ cwd: '/somewhere' }, context);
  assert.ok(chosen.ok && chosen.scratchDirectory === undefined);
  assert.equal(chosen.configuration.cwd, '/somewhere');
  const workspacePipeline = resolveDebugConfiguration({}, { ...context, examplesDirectory: path.join(examples, 'elsewhere') });
  assert.ok(workspacePipeline.ok && workspacePipeline.configuration.cwd === undefined);
});
