import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ScriptedBackend, loadScript, scriptedInterviewer } from '../../../engine/runtime/scripted';
import { providerChatModel } from '../../../extension/chat/chat-model';
import { savePipelineCommand } from '../../../extension/chat/chat-types';
import { handleChatRequest } from '../../../extension/chat/participant';
import { analyzePipeline, convergenceProblems } from '../../../extension/chat/pipeline-facts';
import { engineRunner } from '../../../extension/chat/run-tool';
import { bugFixAnswer, bugFixBypassAnswer, bugFixDot } from '../../fixtures/bug-fix-draft';
import { FakeHttpServer } from '../../llm/fakes/fake-http-server';
import { anthropic, openAiChat } from '../../llm/harness';
import { FakeResponseStream, ScriptedLanguageModel, cancel, deps, repoRoot, tempWorkspace } from './chat-fakes';

/** A recipe drawn as a graph: no cycle, no gate. */
const recipeAnswer = `VERDICT: pipeline
\`\`\`dot
digraph recipe {
  start [shape=Mdiamond]
  plan; implement; test
  done [shape=Msquare]
  start -> plan -> implement -> test -> done
}
\`\`\``;

const bugFixHistory = [
  { prompt: 'parseDate throws a TypeError on "2024-03-01T10:00:00+02:00"; the test in test/date.test.ts fails. Please fix it.' },
  { response: [{ value: { value: 'The offset branch in src/date.ts indexes past the string end.' } }] },
];

const bugFixWorkspace = () => tempWorkspace({ 'package.json': JSON.stringify({ name: 'dates', scripts: { test: 'node --test' } }, null, 2), 'src/date.ts': 'export function parseDate() {}\n', 'test/date.test.ts': '' });

describe('@attractor /attractorify', () => {
  it('answers "no pipeline" for a task without a cycle (the chat\'s selected model)', async () => {
    const model = new ScriptedLanguageModel([
      'VERDICT: no pipeline\n1. Cycle? No: renaming a heading and writing release notes is one pass.\n2. Exit gate? No machine check decides "good release notes".\n3. Bad day? Nothing to loop on.\nJust do it directly.',
    ]);
    const stream = new FakeResponseStream();
    const history = [{ prompt: 'Rename the "Usage" heading in README.md to "Getting started" and write release notes for 1.2.' }];
    await handleChatRequest({ prompt: '', command: 'attractorify', model }, history, stream, cancel, deps({ workspaceRoot: () => tempWorkspace({ 'README.md': '# Usage\n' }) }));
    assert.match(stream.text, /no pipeline/i);
    assert.match(stream.text, /ceremony/);
    assert.equal(stream.buttons.length, 0);
    assert.doesNotMatch(stream.text, /```dot/);
    const [sent] = model.received;
    assert.ok(sent?.[0]?.text.includes('three-question test'), 'the expert prompt goes first');
    assert.ok(sent?.[1]?.text.includes('Getting started'), 'the conversation is in the request');
    assert.ok(sent?.[1]?.text.includes('README.md'), 'the workspace listing is in the request');
  });

  it('rejects, with the path as its reason, a draft whose worker can reach the exit without passing the gate (question 3)', async () => {
    // The critic may declare victory: a bad day of one LLM node ends the run "successfully".
    const model = new ScriptedLanguageModel([bugFixBypassAnswer, bugFixBypassAnswer]);
    const stream = new FakeResponseStream();
    await handleChatRequest({ prompt: '', command: 'attractorify', model }, bugFixHistory, stream, cancel, deps({ workspaceRoot: () => bugFixWorkspace() }));
    const reason = /the worker reaches the exit without passing the gate \(implement -> critic -> done\)/;
    assert.match(model.received[1]?.at(-1)?.text ?? '', reason, 'the reason went back to the model');
    assert.match(stream.text, /still fails our checks/);
    assert.match(stream.text, reason);
    assert.equal(stream.buttons.length, 0, 'not offered for saving');
  });

  describe('through our own provider (fake OpenAI and Anthropic servers)', () => {
    const server = new FakeHttpServer();
    let baseUrl = '';
    before(async () => {
      baseUrl = await server.start();
    });
    after(() => server.stop());

    it('drafts a .dot for a bug fix that lints without errors and has a tool gate on its cycle', async () => {
      server.requests.length = 0;
      server.script(openAiChat.turn({ text: bugFixAnswer }));
      const stream = new FakeResponseStream();
      const providerModel = providerChatModel({ provider: 'openai', model: 'gpt-4o', settings: openAiChat.settings(baseUrl) });
      const workspace = bugFixWorkspace();
      await handleChatRequest({ prompt: 'make it a pipeline', command: 'attractorify' }, bugFixHistory, stream, cancel, deps({ workspaceRoot: () => workspace, providerModel: () => providerModel }));

      assert.match(stream.text, /Verdict: pipeline/);
      const shown = /```dot\n([\s\S]*?)```/.exec(stream.text)?.[1];
      assert.ok(shown, stream.text);
      const analysis = analyzePipeline(shown);
      assert.ok(analysis.ok);
      assert.deepEqual(analysis.facts.diagnostics.filter((d) => d.severity === 'error'), []);
      assert.deepEqual(convergenceProblems(analysis.facts), []);
      assert.deepEqual(analysis.facts.loops.map((loop) => loop.toolGates), [['test_gate']]);
      assert.match(stream.text, /no findings/);
      const [button] = stream.buttons;
      assert.equal(button?.command, savePipelineCommand);
      assert.deepEqual(button?.arguments, [`${bugFixDot}\n`, 'fix_parse_date.dot']);

      assert.equal(server.requests.length, 1);
      const body = JSON.stringify(server.requests[0]?.body);
      assert.ok(body.includes('three-question test'), 'system prompt sent');
      assert.ok(body.includes('parseDate throws a TypeError'), 'conversation sent');
      assert.ok(body.includes('node --test'), 'package.json scripts sent');
    });

    it('feeds lint and gate problems back to the model once and shows the corrected draft', async () => {
      server.requests.length = 0;
      server.script(anthropic.turn({ text: recipeAnswer }), anthropic.turn({ text: bugFixAnswer }));
      const stream = new FakeResponseStream();
      const providerModel = providerChatModel({ provider: 'anthropic', model: 'claude-haiku-4-5', settings: anthropic.settings(baseUrl) });
      await handleChatRequest({ prompt: '', command: 'attractorify' }, bugFixHistory, stream, cancel, deps({ workspaceRoot: () => bugFixWorkspace(), providerModel: () => providerModel }));

      assert.equal(server.requests.length, 2);
      const retry = JSON.stringify(server.requests[1]?.body);
      assert.ok(retry.includes('Our linter rejected the draft'), retry);
      assert.ok(retry.includes('has no cycle'), retry);
      assert.ok(stream.progressLines.some((line) => line.includes('did not pass the linter')));
      assert.ok(stream.text.includes('digraph fix_parse_date'));
      assert.equal(stream.buttons.length, 1);
    });

    it('a connection dropped before any answer is tried again, as for LLM nodes', async () => {
      server.requests.length = 0;
      server.script({ kind: 'reset' }, anthropic.turn({ text: bugFixAnswer }));
      const stream = new FakeResponseStream();
      const providerModel = providerChatModel({ provider: 'anthropic', model: 'claude-haiku-4-5', settings: anthropic.settings(baseUrl) });
      await handleChatRequest({ prompt: 'make it a pipeline', command: 'attractorify' }, bugFixHistory, stream, cancel, deps({ workspaceRoot: () => bugFixWorkspace(), providerModel: () => providerModel }));
      assert.equal(server.requests.length, 2);
      assert.match(stream.text, /Verdict: pipeline/);
      assert.equal(stream.buttons.length, 1);
    });

    it('shows the errors instead of a save button when the retry fails too', async () => {
      server.script(openAiChat.turn({ text: recipeAnswer.replace('-> done', '-> missing') }), openAiChat.turn({ text: recipeAnswer }));
      const stream = new FakeResponseStream();
      const providerModel = providerChatModel({ provider: 'openai', model: 'gpt-4o', settings: openAiChat.settings(baseUrl) });
      await handleChatRequest({ prompt: '', command: 'attractorify' }, bugFixHistory, stream, cancel, deps({ providerModel: () => providerModel }));
      assert.match(stream.text, /still fails our checks/);
      assert.match(stream.text, /has no cycle/);
      assert.equal(stream.buttons.length, 0);
    });
  });

  it('says how to configure a model when there is none', async () => {
    const stream = new FakeResponseStream();
    await handleChatRequest({ prompt: '', command: 'attractorify' }, [], stream, cancel, deps());
    assert.match(stream.text, /No language model is available/);
    assert.match(stream.text, /attractor\.chat\.provider/);
  });
});

describe('@attractor /run, /lint, /explain', () => {
  const scripted = engineRunner(() => {
    const script = loadScript(path.join(repoRoot, 'examples/convergence-loop.scripted.json'));
    return { backend: new ScriptedBackend(script), interviewer: scriptedInterviewer(script) };
  });
  const workspace = () => tempWorkspace({ 'convergence-loop.dot': fs.readFileSync(path.join(repoRoot, 'examples/convergence-loop.dot'), 'utf8') });

  it('/run runs the named pipeline, streams progress and shows the structured result', async () => {
    const root = workspace();
    const stream = new FakeResponseStream();
    await handleChatRequest({ prompt: 'convergence-loop.dot', command: 'run' }, [], stream, cancel, deps({ workspaceRoot: () => root, runner: scripted }));
    assert.match(stream.text, /\*\*success\*\* after 2 iteration\(s\)/);
    const json = JSON.parse(/```json\n([\s\S]*?)```/.exec(stream.text)?.[1] ?? '{}') as { path: string[]; run_directory: string };
    assert.deepEqual(json.path, ['start', 'implement', 'test_gate', 'implement', 'test_gate', 'done']);
    assert.ok(fs.existsSync(json.run_directory));
    assert.ok(stream.progressLines.includes('running test_gate'));
  });

  it('/run refuses in an untrusted workspace', async () => {
    const root = workspace();
    const stream = new FakeResponseStream();
    await handleChatRequest({ prompt: 'convergence-loop.dot', command: 'run' }, [], stream, cancel, deps({ workspaceRoot: () => root, runner: scripted, trusted: () => false }));
    assert.match(stream.text, /Not run:.*not trusted/);
    assert.equal(fs.existsSync(path.join(root, '.attractor-runs')), false);
  });

  it('/lint lints the active pipeline', async () => {
    const root = tempWorkspace({ 'broken.dot': 'digraph g {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> work -> done\n}\n' });
    const stream = new FakeResponseStream();
    await handleChatRequest({ prompt: '', command: 'lint' }, [], stream, cancel, deps({ workspaceRoot: () => root, activePipeline: () => ({ path: path.join(root, 'broken.dot'), text: '' }) }));
    assert.match(stream.text, /line 4: \*\*warning\*\* `edge_target_exists` `work` is not a declared node/);
  });

  it('/explain without a model shows the facts from the parser and linter', async () => {
    const root = workspace();
    const stream = new FakeResponseStream();
    await handleChatRequest({ prompt: 'convergence-loop.dot', command: 'explain' }, [], stream, cancel, deps({ workspaceRoot: () => root }));
    assert.match(stream.text, /test_gate -> implement \(when context\.tool\.last_line=gate_fail, loop_restart\)/);
    assert.match(stream.text, /gated by the shell node\(s\) `test_gate`/);
    assert.match(stream.text, /test_gate is a goal gate \(retry_target=implement\)/);
    assert.match(stream.text, /No language model is available/);
  });

  it('/explain with a model lets it phrase the computed facts, lint meanings included', async () => {
    const root = tempWorkspace({ 'chain.dot': 'digraph chain {\n  start [shape=Mdiamond]\n  plan [prompt="plan"]\n  build [prompt="build"]\n  done [shape=Msquare]\n  start -> plan -> build -> done\n}\n' });
    const model = new ScriptedLanguageModel(['This pipeline is a recipe: it has no cycle.']);
    const stream = new FakeResponseStream();
    await handleChatRequest({ prompt: '', command: 'explain', model }, [], stream, cancel, deps({ workspaceRoot: () => root, activePipeline: () => ({ path: path.join(root, 'chain.dot'), text: fs.readFileSync(path.join(root, 'chain.dot'), 'utf8') }) }));
    assert.equal(stream.text, 'This pipeline is a recipe: it has no cycle.');
    const question = model.received[0]?.[1]?.text ?? '';
    assert.match(question, /Loops\*\*\n- none/);
    assert.match(question, /TOPO-003/);
    assert.match(question, /catches: /);
  });
});
