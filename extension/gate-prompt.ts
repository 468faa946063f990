// A human gate asked in VS Code: in the graph view and in a quick pick (or input box) at once; the
// first answer wins and closes the other.
import * as vscode from 'vscode';
import type { Answer, HumanQuestion } from '../engine';
import { optionCaption } from '../engine/model/accelerator';
import type { GateAnswer } from '../webview/protocol';
import { humanGateMessage } from '../webview/run-projection';
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
  if (question.options.length > 0) {
    const picked = await vscode.window.showQuickPick(
      question.options.map((option) => ({ label: optionCaption(option), description: `→ ${option.to}`, key: option.key })),
      { title: `Attractor gate ${question.nodeId}`, placeHolder: question.text, ignoreFocusOut: true },
      token,
    );
    return picked ? { type: 'option', key: picked.key } : undefined;
  }
  const text = await vscode.window.showInputBox({ title: `Attractor gate ${question.nodeId}`, prompt: question.text, ignoreFocusOut: true }, token);
  return text === undefined ? undefined : { type: 'freeform', text };
}
