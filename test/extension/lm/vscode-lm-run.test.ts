// LLM nodes on VS Code's chat models, through the extension's real run path ("Run pipeline"):
// the engine's agent loop and tools against a scripted `vscode.lm`, with no API key anywhere.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { runLocally as RunLocally, LocalRunOutcome } from '../../../extension/local-run';
import type { llmBackend as LlmBackendOf, llmBackendFactory as LlmBackendFactory } from '../../../extension/secrets';
import type { routeHover as RouteHover } from '../../../extension/lm/route-hover';
import { NODE_AT_METHOD, parseNodeAtResult } from '../../../host/protocol/language-server';
import { ensureTestBundle, fixtureUri, LspClient } from '../../language-server/lsp-client';
import type { askedModelConsent as AskedModelConsent, ModelConsent } from '../../../extension/lm/model-consent';
import { defaultSettings, type ExtensionSettings } from '../../../extension/settings';
import { bundleWithFakeVscode } from '../fake-vscode-bundle';
import type { ScriptedReply } from '../../e2e/scripted-lm-extension/script';
import type { FakeVscodeState, ScriptedChatModel } from '../chat/fake-vscode';
import { repoRoot } from '../chat/chat-fakes';
import { styledLlmPipeline } from '../../fixtures/styled-llm-pipeline';

interface Bundle {
  runLocally: typeof RunLocally;
  llmBackendFactory: typeof LlmBackendFactory;
  llmBackend: typeof LlmBackendOf;
  routeHover: typeof RouteHover;
  askedModelConsent: typeof AskedModelConsent;
  SECRET_LLM_BACKEND: string;
}

const state: FakeVscodeState = { workspaceRoot: '', trusted: true, saveTarget: undefined, tools: new Map(), participants: new Map(), commands: new Map(), shownDocuments: [] };
const noKeys = { get: async () => undefined } as never;
/** The person already allowed the editor's models (the consent itself is tested on its own below). */
const allowed: ModelConsent = async () => true;

const gpt = (replies: ScriptedReply[] = []): ScriptedChatModel => ({ id: 'gpt-4.1', vendor: 'copilot', family: 'gpt-4.1', name: 'GPT-4.1', replies });
const claude = (replies: ScriptedReply[] = []): ScriptedChatModel => ({ id: 'claude-sonnet-4.5', vendor: 'copilot', family: 'claude-sonnet-4.5', name: 'Claude Sonnet 4.5', replies });

function pipeline(source: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-vscode-lm-'));
  fs.writeFileSync(path.join(dir, 'pipeline.dot'), source);
  return path.join(dir, 'pipeline.dot');
}

const worker = (model: string): string => `digraph work {
  graph [llm_model="${model}"]
  start [shape=Mdiamond]
  done [shape=Msquare]
  work [prompt="Write hello.txt saying hi."]
  start -> work -> done
}`;

describe('LLM nodes on VS Code language models', () => {
  let bundle: Bundle;
  before(async () => {
    (globalThis as unknown as { fakeVscode: FakeVscodeState }).fakeVscode = state;
    bundle = await bundleWithFakeVscode<Bundle>(path.join(repoRoot, 'test/extension/lm/lm-run-entry.ts'));
  });
  beforeEach(() => {
    state.lmRequests = [];
    state.lmCancelled = 0;
  });

  async function run(program: string, signal = new AbortController().signal, settings: ExtensionSettings = defaultSettings, consent = allowed): Promise<LocalRunOutcome> {
    return bundle.runLocally(
      { program, backend: bundle.SECRET_LLM_BACKEND, logsRoot: path.join(path.dirname(program), 'run') },
      { post: () => undefined, ask: () => Promise.reject(new Error('no gate here')), backendFactory: await bundle.llmBackendFactory({ secrets: noKeys, consent }, settings) },
      signal,
    );
  }

  it('runs a node that writes a file through the tool loop and reports success, on the Claude model VS Code offers, with no API key', async () => {
    state.chatModels = [
      gpt(),
      claude([{ text: 'Writing it.', toolCalls: [{ name: 'write_file', input: { path: 'hello.txt', content: 'hi\n' } }] }, { toolCalls: [{ name: 'report_outcome', input: { status: 'success', notes: 'wrote hello.txt' } }] }]),
    ];
    const program = pipeline(worker('claude-sonnet-4-5'));
    const outcome = await run(program);
    assert.ok(outcome.kind === 'ran' && outcome.status === 'success', JSON.stringify(outcome));
    assert.equal(fs.readFileSync(path.join(path.dirname(program), 'hello.txt'), 'utf8'), 'hi\n');
    const requests = state.lmRequests ?? [];
    assert.deepEqual(requests.map((r) => r.modelId), ['claude-sonnet-4.5', 'claude-sonnet-4.5']);
    assert.match(requests[0]?.options.justification ?? '', /Attractor runs the LLM nodes of your pipeline/);
    assert.ok(['write_file', 'shell', 'report_outcome'].every((name) => requests[0]?.options.tools?.some((tool) => tool.name === name)));
    // The second request carries the call and its result, paired by call id.
    const sent = requests[1]?.messages as { role: string; content?: { callId?: string; name?: string; content?: { value: string }[] }[] }[];
    const call = sent.flatMap((m) => (m.role === 'assistant' ? (m.content ?? []) : [])).find((part) => part.name === 'write_file');
    const result = sent.flatMap((m) => (m.role === 'user' ? (m.content ?? []) : [])).find((part) => part.callId === call?.callId && part.content);
    assert.ok(call?.callId && result, JSON.stringify(sent));
    assert.match(result.content?.[0]?.value ?? '', /wrote 3 bytes to hello\.txt/);
    const status = JSON.parse(fs.readFileSync(path.join(path.dirname(program), 'run', 'work', 'status.json'), 'utf8')) as { outcome: string; is_explicit: boolean };
    assert.equal(status.is_explicit, true);
    // The API reports no token counts: the run books them as unknown, never as 0.
    const manifest = JSON.parse(fs.readFileSync(path.join(path.dirname(program), 'run', 'manifest.json'), 'utf8')) as { usage_total: Record<string, unknown> };
    assert.deepEqual(manifest.usage_total, { input_tokens: 'unknown', output_tokens: 'unknown', cost_usd: 'unknown', llm_requests: 2, attempts: 3 });
  });

  it('asks the person once per model provider before the first request; declined, the node fails and nothing is sent', async () => {
    const stored = new Map<string, unknown>();
    const memento = { get: (key: string) => stored.get(key), update: async (key: string, value: unknown) => void stored.set(key, value) } as never;
    const consent = bundle.askedModelConsent(memento);
    state.shownMessages = [];
    state.messageAnswers = [undefined];
    state.chatModels = [gpt()];
    const declined = await run(pipeline(worker('gpt-4.1')), new AbortController().signal, defaultSettings, consent);
    assert.ok(declined.kind === 'ran' && declined.status === 'fail', JSON.stringify(declined));
    assert.match(declined.failureReason ?? '', /not allowed: Attractor may not use models from copilot/);
    assert.equal(state.lmRequests?.length, 0, 'nothing reached the model');
    const modals = () => (state.shownMessages ?? []).filter((shown) => shown.modal);
    assert.deepEqual(modals().map((modal) => [modal.message, modal.items]), [['Let Attractor run LLM nodes on GPT-4.1 (copilot)?', ['Allow']]]);
    assert.match(modals()[0]?.detail ?? '', /prompts.*files.*commands/s);

    state.messageAnswers = ['Allow'];
    const done = { toolCalls: [{ name: 'report_outcome', input: { status: 'success', notes: 'done' } }] };
    state.chatModels = [gpt([done, done])];
    const first = await run(pipeline(worker('gpt-4.1')), new AbortController().signal, defaultSettings, consent);
    assert.ok(first.kind === 'ran' && first.status === 'success', JSON.stringify(first));
    const second = await run(pipeline(worker('gpt-4.1')), new AbortController().signal, defaultSettings, consent);
    assert.ok(second.kind === 'ran' && second.status === 'success', JSON.stringify(second));
    assert.equal(modals().length, 2, 'allowed once, not asked again');
    assert.equal(state.lmRequests?.length, 2);
  });

  it('fails closed: a goal gate that answers in prose does not pass', async () => {
    state.chatModels = [gpt([{ text: 'NOT CONVERGED - 2 of 7 criteria pass.' }])];
    const program = pipeline(`digraph judge {
      graph [llm_model="gpt-4o"]
      start [shape=Mdiamond]
      done [shape=Msquare]
      judge [goal_gate=true, max_retries=0, prompt="Judge convergence."]
      start -> judge -> done
    }`);
    const outcome = await run(program);
    assert.ok(outcome.kind === 'ran' && outcome.status === 'fail', JSON.stringify(outcome));
    assert.equal(state.lmRequests?.length, 1);
  });

  it('a refused model access fails the node with VS Code\'s reason, not retried', async () => {
    state.chatModels = [gpt([{ error: 'NoPermissions', message: 'the user did not allow access' }])];
    const outcome = await run(pipeline(worker('gpt-4.1')));
    assert.ok(outcome.kind === 'ran' && outcome.status === 'fail', JSON.stringify(outcome));
    assert.match(outcome.failureReason ?? '', /NoPermissions.*the user did not allow access/);
    assert.equal(state.lmRequests?.length, 1);
  });

  for (const ignoresCancellation of [false, true]) {
    it(`cancelling the run cancels the model request${ignoresCancellation ? ', and stops waiting on a model that ignores its token' : ''}`, async () => {
      state.chatModels = [gpt([{ hang: true, ...(ignoresCancellation ? { ignoresCancellation } : {}) }])];
      const abort = new AbortController();
      const running = run(pipeline(worker('gpt-4.1')), abort.signal);
      while ((state.lmRequests?.length ?? 0) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      abort.abort(new Error('cancelled from VS Code'));
      const outcome = await running;
      assert.ok(outcome.kind === 'ran' && outcome.status === 'cancelled', JSON.stringify(outcome));
      assert.equal(state.lmCancelled, 1, 'the request\'s cancellation token fired');
    });
  }

  it('the preflight names a node whose model has no match before anything runs', async () => {
    state.chatModels = [gpt(), claude()];
    const program = pipeline(worker('gemini-2.5-pro'));
    const outcome = await run(program);
    assert.equal(outcome.kind, 'refused');
    assert.match(outcome.kind === 'refused' ? outcome.reason : '', /node work .*gemini-2\.5-pro.*no Gemini model.*GPT-4\.1 \(copilot\/gpt-4\.1\), Claude Sonnet 4\.5/s);
    assert.equal(state.lmRequests?.length, 0);
    assert.ok(!fs.existsSync(path.join(path.dirname(program), 'run', 'work')), 'no node ran');
  });

  it('with attractor.llm.source "api-keys" the editor\'s models are not used: a node without a key is refused', async () => {
    state.chatModels = [gpt()];
    const outcome = await run(pipeline(worker('gpt-4.1')), new AbortController().signal, { ...defaultSettings, llmSource: 'api-keys' });
    assert.equal(outcome.kind, 'refused');
    assert.match(outcome.kind === 'refused' ? outcome.reason : '', /OPENAI_API_KEY is not set/);
  });

  describe('the hover on an LLM node names where it would run', () => {
    const keyed = { get: async (key: string) => (key === 'attractor.apiKey.anthropic' ? 'sk-ant-test' : undefined) } as never;
    const styled = styledLlmPipeline;
    // The node under the pointer comes from the language server (attractor/nodeAt), as in the editor.
    const uri = fixtureUri('route-hover.dot');
    let server: LspClient;
    before(async () => {
      ensureTestBundle();
      server = await LspClient.start();
      await server.open(uri, styled);
    });
    after(async () => server.stop());
    const hover = async (nodeId: string, secrets: never = noKeys, settings: ExtensionSettings = defaultSettings): Promise<string | undefined> => {
      const line = styled.split('\n').findIndex((text) => text.trimStart().startsWith(`${nodeId} `));
      const node = parseNodeAtResult(await server.connection.sendRequest(NODE_AT_METHOD, { textDocument: { uri }, position: { line, character: 3 } }));
      assert.ok(node.ok, node.ok ? '' : node.error);
      return bundle.routeHover(node.value, await bundle.llmBackend({ secrets, consent: allowed }, settings));
    };

    it('with no key: the editor\'s model, chosen as a launch chooses it (model stylesheet included); no match says why', async () => {
      state.chatModels = [gpt(), claude()];
      assert.equal(await hover('work'), "**Model:** VS Code's chat model `gpt-4.1`");
      assert.equal(await hover('review'), "**Model:** VS Code's chat model `claude-sonnet-4.5`");
      assert.match((await hover('odd')) ?? '', /^\*\*Model:\*\* none can run this node: node 'odd' asks for gemini-2\.5-pro, and VS Code offers no Gemini model/);
      assert.equal(await hover('start'), undefined, 'not an LLM node');
      assert.equal(state.lmRequests?.length, 0, 'a hover sends nothing');
    });

    it('auto: a node whose provider has a stored key runs on it; the others stay on the editor\'s models', async () => {
      state.chatModels = [gpt(), claude()];
      assert.equal(await hover('review', keyed), '**Model:** `claude-sonnet-4-5` on anthropic, with the stored API key');
      assert.equal(await hover('work', keyed), "**Model:** VS Code's chat model `gpt-4.1`");
      assert.equal(await hover('review', keyed, { ...defaultSettings, llmSource: 'vscode' }), "**Model:** VS Code's chat model `claude-sonnet-4.5`");
    });
  });
});
