// What VS Code asks around time travel, through the extension's module bundled with the fake
// `vscode`: the modal before changes the run did not make are discarded (Restore anyway / Cancel),
// Undo after the restore, the question before a run goes back into a folder outside the workspace,
// and the debugger's refused travel sent again with discardChanges.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type * as Prompts from '../../extension/time-travel-prompts';
import { attractorSync as attractor } from '../cli/attractor-sync';
import { bundleWithFakeVscode } from './fake-vscode-bundle';
import type { FakeVscodeState } from './chat/fake-vscode';
import { repoRoot, tempWorkspace } from './chat/chat-fakes';
import { toolChain } from '../fixtures/tool-pipelines';

const pipeline = toolChain('t', { write: 'echo one > out.txt', again: 'echo two >> out.txt' });

const log = { info: () => undefined, warn: () => undefined } as unknown as Parameters<typeof Prompts.branchWithConsent>[2];

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('time travel in VS Code (fake vscode)', () => {
  const state: FakeVscodeState = { workspaceRoot: '', trusted: true, saveTarget: undefined, tools: new Map(), participants: new Map(), commands: new Map(), shownDocuments: [] };
  let prompts: typeof Prompts;

  before(async () => {
    (globalThis as unknown as { fakeVscode: FakeVscodeState }).fakeVscode = state;
    prompts = await bundleWithFakeVscode<typeof Prompts>(path.join(repoRoot, 'extension/time-travel-prompts.ts'));
  });

  const ranInWorkspace = (): string => {
    const dir = tempWorkspace({ 'p.dot': pipeline });
    state.workspaceRoot = dir;
    const run = attractor(dir, ['run', 'p.dot', '--logs-root', 'run']);
    assert.equal(run.status, 0, run.stderr);
    return dir;
  };

  it('"Re-run from here" over a file the run did not make asks in a modal; Cancel touches nothing; Restore anyway goes back; Undo brings the file back', async () => {
    const dir = ranInWorkspace();
    fs.writeFileSync(path.join(dir, 'notes.md'), 'mine\n');
    state.shownMessages = [];
    state.messageAnswers = [undefined];
    assert.equal(await prompts.branchWithConsent(path.join(dir, 'run'), { nodeId: 'again' }, log), undefined);
    const [modal] = state.shownMessages;
    assert.ok(modal?.modal, JSON.stringify(state.shownMessages));
    assert.match(modal.message, /would discard 1 change\(s\) the run did not make/);
    assert.match(modal.detail ?? '', /\n {2}A notes\.md/);
    assert.deepEqual(modal.items, ['Restore anyway']);
    assert.ok(fs.existsSync(path.join(dir, 'notes.md')));
    assert.ok(!fs.existsSync(path.join(dir, 'run.branch-1')));

    state.shownMessages = [];
    let undo = (_choice: string) => undefined as void;
    state.messageAnswers = ['Restore anyway', new Promise<string>((resolve) => (undo = resolve))];
    const made = await prompts.branchWithConsent(path.join(dir, 'run'), { nodeId: 'again' }, log);
    assert.equal(made?.branch.directory, path.join(dir, 'run.branch-1'));
    assert.equal(made?.cwd, dir);
    assert.ok(!fs.existsSync(path.join(dir, 'notes.md')), 'restored over it');
    assert.equal(fs.readFileSync(path.join(dir, 'out.txt'), 'utf8'), 'one\n');
    // The notification after the restore offers Undo, and the person takes it.
    const offer = state.shownMessages.find((m) => m.items.includes('Undo'));
    undo('Undo');
    await until(() => fs.existsSync(path.join(dir, 'notes.md')));
    assert.match(offer?.message ?? '', /was put back as it was then, over 1 change\(s\) the run did not make/);
    await until(() => state.shownMessages?.some((m) => /is back as the restore found it/.test(m.message)) === true);
    assert.equal(fs.readFileSync(path.join(dir, 'out.txt'), 'utf8'), 'one\ntwo\n');
  });

  it('the notification after a restore names what it left as it is, past the snapshot budget', async () => {
    const dir = tempWorkspace({ 'p.dot': 'digraph t {\n  snapshot_max_bytes=100000\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  big [shape=parallelogram, tool_command="head -c 3000000 /dev/urandom > big.bin"]\n  again [shape=parallelogram, tool_command="echo two >> out.txt"]\n  start -> big -> again -> done\n}' });
    state.workspaceRoot = dir;
    assert.equal(attractor(dir, ['run', 'p.dot', '--logs-root', 'run']).status, 0);
    state.shownMessages = [];
    state.messageAnswers = [undefined];
    const made = await prompts.branchWithConsent(path.join(dir, 'run'), { nodeId: 'big' }, log);
    assert.equal(made?.branch.directory, path.join(dir, 'run.branch-1'));
    await until(() => state.shownMessages?.some((m) => m.items.includes('Undo')) === true);
    assert.match(state.shownMessages.find((m) => m.items.includes('Undo'))?.message ?? '', /was put back as it was then\. Left as it is, past the snapshot budget: big\.bin\. Undo brings back/);
    assert.equal(fs.statSync(path.join(dir, 'big.bin')).size, 3_000_000);
  });

  it('a run that worked outside the open workspace goes back there only once the person confirms it', async () => {
    const dir = ranInWorkspace();
    state.workspaceRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-other-ws-'));
    state.shownMessages = [];
    state.messageAnswers = [undefined];
    assert.equal(await prompts.confirmedWorkingDirectory(path.join(dir, 'run')), undefined);
    assert.match(state.shownMessages[0]?.message ?? '', /worked in .*, outside the open workspace/);
    state.messageAnswers = ['Use this folder'];
    assert.equal(await prompts.confirmedWorkingDirectory(path.join(dir, 'run')), dir);
  });

  it("the debugger's refused travel is asked about in the same modal, then sent again with discardChanges", async () => {
    const sent: { command: string; args: unknown }[] = [];
    const session = { customRequest: async (command: string, args: unknown) => sent.push({ command, args }) };
    const body = { command: 'reverseContinue', arguments: { threadId: 1 }, cwd: '/ws', changes: [{ kind: 'changed', path: 'src/a.ts' }] };
    state.shownMessages = [];
    state.messageAnswers = [undefined, 'Restore anyway'];
    await prompts.onTravelEvent(session, 'travelRefused', body);
    assert.deepEqual(sent, [], 'Cancel sends nothing');
    await prompts.onTravelEvent(session, 'travelRefused', body);
    assert.deepEqual(sent, [{ command: 'reverseContinue', args: { threadId: 1, discardChanges: true } }]);
    assert.match(state.shownMessages[1]?.detail ?? '', /M src\/a\.ts/);
  });
});
