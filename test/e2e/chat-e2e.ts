// The chat participant and the LM tools end to end in a real VS Code (code-server) with its chat
// view on and no Copilot: `@attractor` answers on a third-party chat model (the test-only scripted
// provider, picked in the chat's model picker), /attractorify rejects a draft whose worker can
// bypass the gate and offers a clean one, /run streams progress and stops with the chat's stop
// button, and another extension's `vscode.lm.invokeTool` reaches lint_pipeline and run_pipeline,
// which asks for confirmation first — and in Restricted Mode refuses without asking or running.
// (The test extension declares `untrustedWorkspaces.supported: true`: without it VS Code disables
// an extension with a `main` in Restricted Mode, and its command is never offered.)
// Screenshots go to docs/e2e/chat-*.png. `chat-e2e.ts NAME…` runs only the scenarios named.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { bugFixAnswer, bugFixBypassAnswer } from '../fixtures/bug-fix-draft';
import { allowEditorModels, inCodeServer, openFile, readAttractorLog, runCommand, runScenarios, type Scenarios, shot, waitUntil } from './code-server';
import type { LmLogEntry, LmScript, ScriptedReply } from './scripted-lm-extension/script';
import { packageScriptedLm } from './scripted-lm-vsix';

const repo = path.resolve(__dirname, '..', '..');
const vsix = path.join(repo, 'attractor.vsix');
/** The chat view (the secondary side bar) with its conversation and input. */
const chat = '.part.auxiliarybar';

/** An LLM node that must write hello.txt, run on the editor's model (no key anywhere). */
const helloPipeline = `digraph hello {
  graph [llm_model="claude-sonnet-4-5"]
  start [shape=Mdiamond]
  done  [shape=Msquare]
  work  [prompt="Write hello.txt saying hi."]
  start -> work -> done
}
`;

/** The model's two turns of one hello run: write the file through the tool loop, then report. */
const writesHello: ScriptedReply[] = [
  { text: 'Writing it.', toolCalls: [{ name: 'write_file', input: { path: 'hello.txt', content: 'hi\n' } }] },
  { toolCalls: [{ name: 'report_outcome', input: { status: 'success', notes: 'wrote hello.txt' } }] },
];

/** A small project with the bug the conversation is about. */
const bugFixProject = {
  'package.json': JSON.stringify({ name: 'dates', scripts: { test: 'node --test' } }, null, 2),
  'src/date.js': 'exports.parseDate = (text) => new Date(text.slice(0, 19) + text[25]);\n',
  'test/date.test.js': "const assert = require('node:assert');\nconst { test } = require('node:test');\nconst { parseDate } = require('../src/date');\ntest('offset', () => assert.equal(parseDate('2024-03-01T10:00:00+02:00').toISOString(), '2024-03-01T08:00:00.000Z'));\n",
};

function workspace(script: LmScript): Record<string, string> {
  return { ...bugFixProject, 'hello.dot': helloPipeline, 'stuck.dot': helloPipeline.replace('digraph hello', 'digraph stuck'), 'attractor-scripted-lm.json': JSON.stringify(script, null, 2) };
}

function lmLog(root: string): LmLogEntry[] {
  const file = path.join(root, 'attractor-scripted-lm.log.jsonl');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LmLogEntry) : [];
}

/** lint_pipeline's answer on hello.dot: no error, the one-pass warning. */
const helloLint = /hello\.dot: 0 error\(s\), 1 warning\(s\)\n- line 1: \*\*warning\*\* `TOPO-003`/;

const requests = (root: string) => lmLog(root).filter((entry) => entry.event === 'request');
const toolResults = (root: string) => lmLog(root).filter((entry) => entry.event === 'tool');

/** Types a request into the chat view's input and sends it. */
async function ask(page: Page, text: string): Promise<void> {
  await page.click(`${chat} .interactive-input-editor`);
  // @attractor is sticky: the input starts with it after its first answer.
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/** The last response of the conversation, once it shows `expect`. */
async function lastResponse(page: Page, expect: RegExp, timeoutMs = 120_000): Promise<string> {
  const response = page.locator(`${chat} .interactive-item-container.interactive-response`).last();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await response.innerText().catch(() => '');
    if (expect.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`the chat's last response never matched ${expect}:\n${text}`);
    await page.waitForTimeout(500);
  }
}

/** Trusted workspace: the participant on the picked model, then the tools from another extension. */
async function participantAndTools(): Promise<void> {
  const script: LmScript = {
    replies: [{ text: bugFixBypassAnswer }, { text: bugFixBypassAnswer }, { text: bugFixAnswer }, ...writesHello, { hang: true }, ...writesHello],
    toolInvocations: [
      { name: 'lint_pipeline', input: { dot_file: 'hello.dot' } },
      { name: 'run_pipeline', input: { dot_file: 'hello.dot' } },
    ],
  };
  await inCodeServer('chat', { vsix, alsoInstall: [await packageScriptedLm()], files: workspace(script), userSettings: { 'chat.disableAIFeatures': false } }, async (vscode) => {
    const { page } = vscode;
    const root = vscode.workspace;
    // 1. The chat view, with the scripted model picked in its model picker.
    await page.keyboard.press('Control+Alt+I');
    await page.waitForSelector(`${chat} .interactive-input-editor`);
    await page.waitForSelector(`${chat} .interactive-input-part:has-text("Scripted Claude")`, { timeout: 60_000 });
    await shot(page, 'chat-01-model-picked');

    // 2. /attractorify on the bug fix: the model's draft lets the critic end the run; our check rejects
    // it, sends the reason back, and rejects the second draft in the chat with the reason.
    await ask(page, '@attractor /attractorify parseDate throws a TypeError on "2024-03-01T10:00:00+02:00" and npm test fails. Fix it.');
    const rejected = await lastResponse(page, /still fails our checks/);
    assert.match(rejected, /the worker reaches the exit without passing the gate \(implement -> critic -> done\)/);
    assert.doesNotMatch(rejected, /Save and open graph view/);
    const [first, retry] = requests(root);
    assert.match(first?.lastMessage ?? '', /TypeError on "2024-03-01T10:00:00\+02:00"/, 'the request reached the scripted model');
    assert.match(first?.lastMessage ?? '', /top level: .*package\.json, src\//, 'with the workspace listing');
    assert.match(retry?.lastMessage ?? '', /Our linter rejected the draft:[\s\S]*without passing the gate/, 'the reason went back to the model');
    await shot(page, 'chat-02-attractorify-rejects-bypass');

    // 3. Asked again, a draft that passes the three questions: linted clean and offered for saving.
    await ask(page, '@attractor /attractorify route the critic through the test gate');
    // The draft's code block is a Monaco editor filled after the button renders: wait for both.
    const drafted = await lastResponse(page, /^(?=[\s\S]*Save and open graph view)(?=[\s\S]*digraph\s+fix_parse_date)/);
    assert.match(drafted, /Verdict: pipeline/);
    assert.match(drafted, /Linted with Attractor's own rules: no findings/);
    await shot(page, 'chat-03-attractorify-drafts');

    // 4. /run: the LLM node writes hello.txt on the scripted model; the result comes back in the chat.
    await ask(page, '@attractor /run hello.dot');
    await allowEditorModels(page);
    const ran = await lastResponse(page, /"status":\s*"success"/); // Monaco renders spaces as U+00A0
    assert.match(ran, /success\s*after 1 iteration/);
    assert.match(ran, /hello\.txt/);
    assert.equal(fs.readFileSync(path.join(root, 'hello.txt'), 'utf8'), 'hi\n');
    await shot(page, 'chat-04-run-succeeded');

    // 5. /run streams progress while the node's model has not answered, and the chat's stop button
    // cancels the run and the model request.
    await ask(page, '@attractor /run stuck.dot');
    await lastResponse(page, /running work/, 60_000);
    await waitUntil(() => (requests(root).at(-1)?.reply && 'hang' in (requests(root).at(-1)?.reply ?? {}) ? true : undefined), 60_000, 'the hanging model request');
    await shot(page, 'chat-05-run-streams-progress');
    await page.click(`${chat} .interactive-input-part .action-label[aria-label^="Cancel"], ${chat} .interactive-input-part .codicon-debug-stop`);
    await waitUntil(() => (lmLog(root).some((entry) => entry.event === 'cancelled') ? true : undefined), 30_000, 'the model to see its request cancelled');

    // 6. Another extension's invokeTool: lint_pipeline answers; run_pipeline asks first, then runs.
    await page.keyboard.press('Escape');
    await runCommand(page, 'Attractor test: Invoke LM tools');
    const lint = await waitUntil(() => toolResults(root).find((entry) => entry.name === 'lint_pipeline'), 60_000, 'lint_pipeline');
    assert.ok('result' in lint && helloLint.test(lint.result), JSON.stringify(lint));
    const dialog = page.locator('.monaco-dialog-box:has-text("Run pipeline hello?")');
    await dialog.waitFor({ timeout: 60_000 });
    assert.match(await dialog.innerText(), /Runs `?.*hello\.dot/);
    await shot(page, 'chat-06-run-pipeline-confirms');
    await dialog.locator('.dialog-buttons .monaco-button:has-text("Yes")').click();
    const run = await waitUntil(() => toolResults(root).find((entry) => entry.name === 'run_pipeline'), 120_000, 'run_pipeline');
    assert.ok('result' in run, JSON.stringify(run));
    const result = JSON.parse(run.result) as { status: string; path: string[]; artifacts: string[] };
    assert.equal(result.status, 'success');
    assert.deepEqual(result.path, ['start', 'work', 'done']);
    assert.ok(result.artifacts.includes('hello.txt'), JSON.stringify(result));
  }, (vscode) => JSON.stringify(lmLog(vscode.workspace), null, 2));
}

/** Restricted Mode: run_pipeline refuses before any confirmation and runs nothing; lint_pipeline still answers. */
async function untrustedTools(): Promise<void> {
  const script: LmScript = {
    replies: [],
    toolInvocations: [
      { name: 'run_pipeline', input: { dot_file: 'hello.dot' } },
      { name: 'lint_pipeline', input: { dot_file: 'hello.dot' } },
    ],
  };
  await inCodeServer('chat-untrusted', { vsix, alsoInstall: [await packageScriptedLm()], files: workspace(script), trusted: false, userSettings: { 'chat.disableAIFeatures': false } }, async (vscode) => {
    const { page } = vscode;
    const root = vscode.workspace;
    await runCommand(page, 'Attractor test: Invoke LM tools');
    // A confirmation would hold invokeTool until answered: both results arriving unanswered is the proof.
    const [run, lint] = await waitUntil(() => (toolResults(root).length === 2 ? toolResults(root) : undefined), 120_000, 'both tools');
    assert.equal(run?.name, 'run_pipeline');
    assert.ok(run && 'result' in run, JSON.stringify(run));
    const refused = JSON.parse(run.result) as { status: string; failure_reason: string; run_directory: string | null };
    assert.equal(refused.status, 'refused');
    assert.match(refused.failure_reason, /this workspace is not trusted/);
    assert.equal(refused.run_directory, null);
    assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'no confirmation was asked');
    assert.ok(!fs.existsSync(path.join(root, '.attractor-runs')), 'no run directory');
    assert.ok(!fs.existsSync(path.join(root, 'hello.txt')), 'nothing ran');
    assert.equal(requests(root).length, 0, 'no model was asked');
    assert.ok(lint && 'result' in lint && helloLint.test(lint.result), JSON.stringify(lint));
    assert.match(readAttractorLog(vscode.userDataDir), /workspace untrusted \(runs disabled\)/, 'the extension ran in Restricted Mode');
    await openFile(page, 'attractor-scripted-lm.log.jsonl', 'refused');
    await page.keyboard.press('Alt+Z'); // word wrap: the whole refusal in view
    await shot(page, 'chat-07-untrusted-run-pipeline-refuses');
  }, (vscode) => `${JSON.stringify(lmLog(vscode.workspace), null, 2)}\n${readAttractorLog(vscode.userDataDir)}`);
}

/** The scenarios in the order they run. */
const scenarios: Scenarios = [
  ['tools', participantAndTools, 'e2e (chat participant and LM tools): passed'],
  ['untrusted', untrustedTools, 'e2e (LM tools in Restricted Mode): passed'],
];

assert.ok(fs.existsSync(vsix), `${vsix} missing: run npm run package`);
runScenarios(scenarios);
