// A human gate asked in VS Code, the same way under every way of running (F5, ▶ Run, chat tools):
// in the graph view and in VS Code's own quick pick (or input box) at once, so a gate never waits
// unseen when the graph view is closed. The first answer wins and closes the other.
import * as vscode from 'vscode';
import type { Answer, GateReply, HumanQuestion } from '../engine';
import { optionCaption } from '../engine/model/accelerator';
import type { HumanGateMessage } from '../host/protocol/webview';
import { humanGateMessage } from '../host/view/run-projection';
import { offerAttachments } from './gate-attachments';
import type { GraphPanel } from './graph-panel';

/** Resolves with the first answer, or with undefined once `signal` aborts (the gate closed elsewhere). */
export function askGate(panel: GraphPanel, gate: HumanGateMessage, signal: AbortSignal): Promise<GateReply | undefined> {
  return new Promise((resolve) => {
    const picker = new vscode.CancellationTokenSource();
    let settled = false;
    const settle = (answer: GateReply | undefined): void => {
      if (settled) return;
      settled = true;
      picker.cancel();
      picker.dispose();
      resolve(answer);
    };
    if (signal.aborted) return settle(undefined);
    signal.addEventListener('abort', () => settle(undefined), { once: true });
    panel.askGate(gate, settle);
    void quickPickAnswer(gate, picker.token).then((answer) => {
      if (answer) settle(answer);
    });
  });
}

/** An engine question (local runs, a server's runs): asked until answered; rejects once `signal` aborts. */
export async function askInVsCode(panel: GraphPanel, question: HumanQuestion, signal: AbortSignal): Promise<Answer> {
  const answer = await askGate(panel, humanGateMessage(question), signal);
  if (answer) return answer;
  throw signal.reason instanceof Error ? signal.reason : new Error('cancelled');
}

async function quickPickAnswer(gate: HumanGateMessage, token: vscode.CancellationToken): Promise<GateReply | undefined> {
  const title = `Attractor gate ${gate.nodeId ?? ''}`.trimEnd();
  const attached = (files: string[]) => (files.length > 0 ? { attachments: files } : {});
  if (gate.options.length > 0) {
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { key: string }>();
    pick.items = gate.options.map((option) => ({ label: optionCaption(option), description: `→ ${option.to}`, key: option.key }));
    pick.placeholder = gate.question;
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
