import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { RegisterChatDeps, registerChat as RegisterChat } from '../../../extension/chat/register';
import type { RunRequest } from '../../../extension/chat/run-tool';
import { engineRunner } from '../../../extension/chat/run-tool';
import { ScriptedBackend, loadScript, scriptedInterviewer } from '../../../engine/runtime/scripted';
import { bundleWithFakeVscode } from '../fake-vscode-bundle';
import type { FakeVscodeState } from './fake-vscode';
import { FakeResponseStream, ScriptedLanguageModel, repoRoot, tempWorkspace } from './chat-fakes';

/** registerChat bundled as the extension bundles it, with `vscode` resolved to the fake. */
async function loadRegisterChat(): Promise<typeof RegisterChat> {
  return (await bundleWithFakeVscode<{ registerChat: typeof RegisterChat }>(path.join(repoRoot, 'extension/chat/register.ts'))).registerChat;
}

const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose: () => undefined }) };

describe('registerChat', () => {
  const state: FakeVscodeState = { workspaceRoot: '', trusted: true, saveTarget: undefined, tools: new Map(), participants: new Map(), commands: new Map(), shownDocuments: [] };
  const graphViews: string[] = [];
  const runs: RunRequest[] = [];

  before(async () => {
    (globalThis as unknown as { fakeVscode: FakeVscodeState }).fakeVscode = state;
    state.workspaceRoot = tempWorkspace({ 'convergence-loop.dot': fs.readFileSync(path.join(repoRoot, 'examples/convergence-loop.dot'), 'utf8') });
    const scripted = engineRunner(() => {
      const script = loadScript(path.join(repoRoot, 'examples/convergence-loop.scripted.json'));
      return { backend: new ScriptedBackend(script), interviewer: scriptedInterviewer(script) };
    });
    const deps: RegisterChatDeps = {
      runner: (request) => {
        runs.push(request);
        return scripted(request);
      },
      openGraphView: (uri) => graphViews.push((uri as unknown as { fsPath: string }).fsPath),
    };
    const registerChat = await loadRegisterChat();
    registerChat({ extensionPath: repoRoot, subscriptions: [] } as unknown as Parameters<typeof RegisterChat>[0], deps);
  });

  it('registers both tools, the participant and the save command', () => {
    assert.deepEqual([...state.tools.keys()], ['run_pipeline', 'lint_pipeline']);
    assert.deepEqual([...state.participants.keys()], ['attractor.chat']);
    assert.ok(state.commands.has('attractor.chat.savePipeline'));
  });

  it('run_pipeline asks for confirmation showing what will run, then returns the structured result as text', async () => {
    const tool = state.tools.get('run_pipeline');
    const prepared = (await tool?.prepareInvocation?.({ input: { dot_file: 'convergence-loop.dot' } }, token)) as { confirmationMessages: { title: string; message: { value: string } } };
    assert.equal(prepared.confirmationMessages.title, 'Run pipeline convergence_loop?');
    assert.match(prepared.confirmationMessages.message.value, /sh count_words\.sh/);
    const result = (await tool?.invoke({ input: { dot_file: 'convergence-loop.dot' }, toolInvocationToken: undefined }, token)) as { content: { value: string }[] };
    const json = JSON.parse(result.content[0]?.value ?? '{}') as { status: string; iterations: number };
    assert.equal(json.status, 'success');
    assert.equal(json.iterations, 2);
    assert.equal(runs.length, 1, 'ran through the runner the extension injected');
  });

  it('run_pipeline refuses once the workspace is untrusted, before it asks for confirmation', async () => {
    state.trusted = false;
    try {
      const prepared = (await state.tools.get('run_pipeline')?.prepareInvocation?.({ input: { dot_file: 'convergence-loop.dot' } }, token)) as { invocationMessage: string; confirmationMessages?: unknown };
      assert.equal(prepared.confirmationMessages, undefined, 'no confirmation dialog');
      assert.match(prepared.invocationMessage, /not trusted/);
      const result = (await state.tools.get('run_pipeline')?.invoke({ input: { dot_file: 'convergence-loop.dot' }, toolInvocationToken: undefined }, token)) as { content: { value: string }[] };
      assert.equal((JSON.parse(result.content[0]?.value ?? '{}') as { status: string }).status, 'refused');
    } finally {
      state.trusted = true;
    }
  });

  it('lint_pipeline returns the findings as text', async () => {
    const result = (await state.tools.get('lint_pipeline')?.invoke({ input: { dot_source: 'digraph g { start [shape=Mdiamond] }' }, toolInvocationToken: undefined }, token)) as { content: { value: string }[] };
    assert.match(result.content[0]?.value ?? '', /\*\*error\*\* `terminal_node`/);
  });

  it('the participant uses request.model and the prompt file shipped with the extension', async () => {
    const model = new ScriptedLanguageModel(['VERDICT: no pipeline\nJust edit the file.']);
    const stream = new FakeResponseStream();
    await state.participants.get('attractor.chat')?.handler({ prompt: 'fix a typo', command: 'attractorify', model }, { history: [] }, stream, token);
    assert.match(stream.text, /Verdict: no pipeline/);
    assert.match(model.received[0]?.[0]?.text ?? '', /^# You are the attractor expert/);
  });

  it('the save button writes the draft, opens it and shows the graph view', async () => {
    state.saveTarget = path.join(state.workspaceRoot, 'fix.dot');
    await state.commands.get('attractor.chat.savePipeline')?.('digraph fix {}\n', 'fix.dot');
    assert.equal(fs.readFileSync(state.saveTarget, 'utf8'), 'digraph fix {}\n');
    assert.deepEqual(state.shownDocuments, [state.saveTarget]);
    assert.deepEqual(graphViews, [state.saveTarget]);
  });
});
