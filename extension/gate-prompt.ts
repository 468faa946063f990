// A human gate asked in VS Code: in the graph view and in a quick pick (or input box) at once; the
// first answer wins and closes the other.
import * as vscode from 'vscode';
import type { Answer, HumanQuestion } from '../engine';
import { optionCaption } from '../engine/model/accelerator';
import type { GateAnswer } from '../webview/protocol';
import { humanGateMessage } from '../webview/run-projection';
import { offerAttachments } from './gate-attachments';
import type { GraphPanel } from './graph-panel';
import { engineAnswer } from './local-run';

/** Resolves with the first answer; rejects once `signal` aborts (the gate stopped waiting). */
export function askInVsCode(panel: GraphPanel, question: HumanQuestion, signal: AbortSignal): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const cancel = new vscode.CancellationTokenSource();
    let settled = false;
    const settle = (answer: GateAnswer): void => {
      if (settled) return;
      settled = true;
      cancel.cancel();
      resolve(engineAnswer(answer));
    };
    signal.addEventListener('abort', () => {
      cancel.cancel();
      if (!settled) reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
    }, { once: true });
    panel.askGate(humanGateMessage(question), settle);
    void quickPickAnswer(question, cancel.token).then((answer) => {
      if (answer) settle(answer);
    });
  });
}

async function quickPickAnswer(question: HumanQuestion, token: vscode.CancellationToken): Promise<GateAnswer | undefined> {
  const title = `Attractor gate ${question.nodeId}`;
  const attached = (files: string[]) => (files.length > 0 ? { attachments: files } : {});
  if (question.options.length > 0) {
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { key: string }>();
    pick.items = question.options.map((option) => ({ label: optionCaption(option), description: `→ ${option.to}`, key: option.key }));
    pick.placeholder = question.text;
    pick.ignoreFocusOut = true;
    const attachments = offerAttachments(pick, title);
    const picked = await untilAccepted(pick, token, () => pick.selectedItems[0]);
    return picked ? { type: 'option', key: picked.key, ...attached(attachments()) } : undefined;
  }
  const box = vscode.window.createInputBox();
  box.prompt = question.text;
  box.ignoreFocusOut = true;
  const attachments = offerAttachments(box, title);
  const text = await untilAccepted(box, token, () => box.value);
  return text === undefined ? undefined : { type: 'freeform', text, ...attached(attachments()) };
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
