// A human gate is asked once, where the person is looking: in the graph view when it is visible,
// else in VS Code's quick pick; a status bar item only says that a gate waits.
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, beforeEach, describe, it } from 'node:test';
import type { GateReply } from '../../engine';
import type * as GatePrompt from '../../extension/gate-prompt';
import type { HumanGateMessage } from '../../host/protocol/webview';
import type { FakeVscodeState } from './chat/fake-vscode';
import { bundleWithFakeVscode } from './fake-vscode-bundle';

const repoRoot = path.resolve(__dirname, '..', '..');
const gate: HumanGateMessage = {
  type: 'humanGate',
  gateId: 'g1',
  nodeId: 'gate',
  question: 'Ship it?',
  options: [
    { key: 'Y', label: '[Y] Yes', to: 'ship' },
    { key: 'N', label: '[N] No', to: 'fix' },
  ],
  freeform: false,
};

/** The graph view as the gate prompt sees it: shown or not, and the gates it holds. */
class FakeGraphView implements GatePrompt.GateView {
  visible: boolean;
  readonly shownUri = undefined;
  readonly gates: { message: HumanGateMessage; respond: (answer: GateReply) => void }[] = [];
  private readonly listeners: ((visible: boolean) => void)[] = [];
  constructor(visible: boolean) {
    this.visible = visible;
  }
  askGate(message: HumanGateMessage, respond: (answer: GateReply) => void): void {
    this.gates.push({ message, respond });
  }
  onDidChangeVisible(listener: (visible: boolean) => void) {
    this.listeners.push(listener);
    return { dispose: () => void this.listeners.splice(this.listeners.indexOf(listener), 1) };
  }
  setVisible(visible: boolean): void {
    this.visible = visible;
    for (const listener of [...this.listeners]) listener(visible);
  }
}

describe('asking a human gate', () => {
  const state: FakeVscodeState = { workspaceRoot: '', trusted: true, saveTarget: undefined, tools: new Map(), participants: new Map(), commands: new Map(), shownDocuments: [] };
  let askGate: typeof GatePrompt.askGate;
  const openInputs = () => (state.quickInputs ?? []).filter((input) => input.visible);
  const waitingItems = () => (state.statusItems ?? []).filter((item) => item.visible);

  before(async () => {
    (globalThis as unknown as { fakeVscode: FakeVscodeState }).fakeVscode = state;
    ({ askGate } = await bundleWithFakeVscode<typeof GatePrompt>(path.join(repoRoot, 'extension/gate-prompt.ts')));
  });
  beforeEach(() => {
    state.quickInputs = [];
    state.statusItems = [];
  });

  it('with the graph view visible, only the graph view asks; the status bar says a gate waits, until the answer', async () => {
    const view = new FakeGraphView(true);
    const answer = askGate(view, gate, new AbortController().signal);
    assert.equal(view.gates.length, 1, 'the graph view holds the gate');
    assert.equal(openInputs().length, 0, 'no quick pick asks a second time');
    assert.equal(waitingItems().length, 1);
    assert.match(waitingItems()[0]?.text ?? '', /gate waits for your answer/);
    view.gates[0]?.respond({ kind: 'option', choice: 'Y' });
    assert.deepEqual(await answer, { kind: 'option', choice: 'Y' });
    assert.equal(waitingItems().length, 0);
  });

  it('with the graph view hidden, the quick pick asks under a clean title; hiding and showing the graph view moves the question', async () => {
    const view = new FakeGraphView(false);
    const answer = askGate(view, gate, new AbortController().signal);
    const [pick] = openInputs();
    assert.ok(pick, 'the quick pick asks');
    assert.equal(pick.title, 'gate waits for your answer');
    assert.equal(pick.placeholder, 'Ship it?');
    view.setVisible(true);
    assert.equal(openInputs().length, 0, 'the graph view came into sight: it asks alone');
    view.setVisible(false);
    const [again] = openInputs();
    assert.ok(again, 'the graph view went out of sight: the quick pick asks again');
    again.accept('[N] No');
    assert.deepEqual(await answer, { kind: 'option', choice: 'N' });
    assert.equal(openInputs().length, 0);
    assert.equal(waitingItems().length, 0);
  });

  it('a gate closed elsewhere (answered in another client, the run stopped) closes every surface', async () => {
    const view = new FakeGraphView(false);
    const closed = new AbortController();
    const answer = askGate(view, gate, closed.signal);
    assert.equal(openInputs().length, 1);
    closed.abort();
    assert.equal(await answer, undefined);
    assert.equal(openInputs().length, 0);
    assert.equal(waitingItems().length, 0);
    view.setVisible(false);
    view.setVisible(true);
    assert.equal(openInputs().length, 0, 'nothing asks after the gate closed');
  });

  it('a confirmation gate (canonical §6.2) asks Yes or No in the quick pick, saying where each goes and that No fails the node', async () => {
    const view = new FakeGraphView(false);
    const confirm: HumanGateMessage = { ...gate, question: 'Publish?', questionType: 'confirmation', options: [{ key: 'Y', label: 'Yes', to: 'notes' }, { key: 'N', label: 'No', to: '' }] };
    const answer = askGate(view, confirm, new AbortController().signal);
    const [pick] = openInputs();
    assert.ok(pick, 'the quick pick asks');
    assert.equal(pick.placeholder, 'Publish? (confirm to go on)');
    assert.deepEqual(pick.items.map((item) => [item.label, item.description]), [['[Y] Yes', '→ notes'], ['[N] No', 'the node fails']]);
    pick.accept('[N] No');
    assert.deepEqual(await answer, { kind: 'option', choice: 'N' });
  });
});
