// A human gate asked in VS Code, the same way under every way of running (F5, ▶ Run, chat tools):
// once, where the person is looking. The graph view asks while it is in sight; while it is not,
// VS Code's quick pick (or input box) asks instead, so a gate never waits unseen. A status bar item
// only says that a gate waits (a click shows the graph view, which asks).
import * as vscode from 'vscode';
import type { Answer, GateReply, HumanQuestion } from '../engine';
import { optionCaption } from '../engine/model/accelerator';
import type { HumanGateMessage } from '../host/protocol/webview';
import { humanGateMessage } from '../host/view/run-projection';
import { offerAttachments } from './gate-attachments';

/** What the gate prompt needs of the graph view (GraphPanel). */
export interface GateView {
  /** The graph view is on screen. */
  readonly visible: boolean;
  /** The pipeline it shows (where a click on "gate waits" brings it back). */
  readonly shownUri: vscode.Uri | undefined;
  onDidChangeVisible(listener: (visible: boolean) => void): vscode.Disposable;
  /** Holds the gate (shown whenever the view is); `respond` receives the view's answer. */
  askGate(message: HumanGateMessage, respond: (answer: GateReply) => void): void;
}

/** Resolves with the first answer, or with undefined once `signal` aborts (the gate closed elsewhere). */
export function askGate(view: GateView, gate: HumanGateMessage, signal: AbortSignal): Promise<GateReply | undefined> {
  return new Promise((resolve) => {
    let picker: vscode.CancellationTokenSource | undefined;
    let settled = false;
    const closePicker = (): void => {
      picker?.cancel();
      picker?.dispose();
      picker = undefined;
    };
    const openPicker = (): void => {
      if (picker || settled) return;
      const source = new vscode.CancellationTokenSource();
      picker = source;
      void quickPickAnswer(gate, source.token).then((answer) => {
        if (answer) settle(answer);
        else if (picker === source) closePicker(); // dismissed: the status bar item still says the gate waits
      });
    };
    const waiting = gateWaitingItem(gate, view.shownUri);
    const visibility = view.onDidChangeVisible((visible) => (visible ? closePicker() : openPicker()));
    const settle = (answer: GateReply | undefined): void => {
      if (settled) return;
      settled = true;
      visibility.dispose();
      waiting.dispose();
      closePicker();
      resolve(answer);
    };
    if (signal.aborted) return settle(undefined);
    signal.addEventListener('abort', () => settle(undefined), { once: true });
    view.askGate(gate, settle);
    if (!view.visible) openPicker();
  });
}

/** An engine question (local runs, a server's runs): asked until answered; rejects once `signal` aborts. */
export async function askInVsCode(view: GateView, question: HumanQuestion, signal: AbortSignal): Promise<Answer> {
  const answer = await askGate(view, humanGateMessage(question), signal);
  if (answer) return answer;
  throw signal.reason instanceof Error ? signal.reason : new Error('cancelled');
}

const waitsTitle = (gate: HumanGateMessage): string => `${gate.nodeId ?? 'a human gate'} waits for your answer`;

/** "gate waits for your answer" in the status bar while the gate is open; a click shows the graph view. */
function gateWaitingItem(gate: HumanGateMessage, pipeline: vscode.Uri | undefined): vscode.Disposable {
  const item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 11);
  item.name = 'Attractor human gate';
  item.text = `$(comment-discussion) ${waitsTitle(gate)}`;
  item.tooltip = `${gate.question}\nClick to answer in the graph view.`;
  item.command = { title: 'Show graph', command: 'attractor.showGraph', arguments: pipeline ? [pipeline] : [] };
  item.show();
  return item;
}

async function quickPickAnswer(gate: HumanGateMessage, token: vscode.CancellationToken): Promise<GateReply | undefined> {
  const title = waitsTitle(gate);
  const attached = (files: string[]) => (files.length > 0 ? { attachments: files } : {});
  if (gate.options.length > 0) {
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { key: string }>();
    pick.items = gate.options.map((option) => ({ label: optionCaption(option), description: option.to === '' ? 'the node fails' : `→ ${option.to}`, key: option.key }));
    pick.placeholder = gate.questionType === undefined ? gate.question : `${gate.question} (${gate.questionType === 'yes_no' ? 'yes or no' : 'confirm to go on'})`;
    pick.ignoreFocusOut = true;
    const attachments = offerAttachments(pick, title);
    const picked = await untilAccepted(pick, token, () => pick.selectedItems[0]);
    return picked ? { kind: 'option', choice: picked.key, ...attached(attachments()) } : undefined;
  }
  const box = vscode.window.createInputBox();
  box.prompt = gate.question;
  box.ignoreFocusOut = true;
  const attachments = offerAttachments(box, title);
  const text = await untilAccepted(box, token, () => box.value);
  return text === undefined ? undefined : { kind: 'freeform', text, ...attached(attachments()) };
}

/** Shows the input until it is accepted (the value), hidden or cancelled (undefined); then disposes it. */
function untilAccepted<T>(input: vscode.QuickPick<vscode.QuickPickItem & { key: string }> | vscode.InputBox, token: vscode.CancellationToken, value: () => T | undefined): Promise<T | undefined> {
  return new Promise((resolve) => {
    let result: T | undefined;
    input.onDidAccept(() => {
      result = value();
      input.hide();
    });
    input.onDidHide(() => {
      input.dispose();
      resolve(result);
    });
    token.onCancellationRequested(() => input.hide());
    input.show();
  });
}
