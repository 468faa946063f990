// Following a run on an `attractor serve` server: its events become the same graph-view messages
// as a local run's (RunProjection), and its human gates are asked here and answered over HTTP.
// No `vscode`: the caller injects how to post and how to ask.
import type { Answer, HumanQuestion } from '../engine';
import { ServeRequestError, type ServeClient } from '../host/serve/serve-client';
import type { ExtensionToWebviewMessage } from '../host/protocol/webview';
import { RunProjection } from '../host/view/run-projection';

export interface RemoteRunHooks {
  /** Every graph-view message the run produces, in order. */
  readonly post: (message: ExtensionToWebviewMessage) => void;
  /** Asks a person; `signal` aborts once the question no longer waits (answered elsewhere, run over). */
  readonly ask: (question: HumanQuestion, signal: AbortSignal) => Promise<Answer>;
  /** An answer the server did not take, with its reason (another client answered first, say). */
  readonly onAnswerRefused?: (question: HumanQuestion, reason: string) => void;
}

/**
 * Follows run `id` from its first event until it is over ('finished') or `signal` stops it
 * ('stopped'); rejects when the server refuses the stream or cannot be reached.
 */
export async function followRemoteRun(client: ServeClient, id: string, hooks: RemoteRunHooks, signal: AbortSignal): Promise<'finished' | 'stopped'> {
  const projection = new RunProjection();
  /** Each open question's way to stop asking, by node (one question per gate node at a time). */
  const asking = new Map<string, AbortController>();
  const stopAsking = (nodeId: string): void => {
    asking.get(nodeId)?.abort(new Error('the question no longer waits'));
    asking.delete(nodeId);
  };
  signal.addEventListener('abort', () => {
    for (const nodeId of [...asking.keys()]) stopAsking(nodeId);
  }, { once: true });
  return client.follow(
    id,
    ({ event }) => {
      // An attached debugger's holds (and its lapsed lease) show in the debugger, not in the graph view that follows the run.
      if (event.type === 'hold' || event.type === 'lease:lapsed') return;
      for (const message of projection.apply(event)) hooks.post(message);
      if (event.type === 'human:question') {
        const controller = new AbortController();
        asking.set(event.nodeId, controller);
        void answer(client, id, event.question, controller.signal, hooks);
      } else if (event.type === 'human:answer') {
        stopAsking(event.nodeId);
      } else if (event.type === 'run:end') {
        for (const nodeId of [...asking.keys()]) stopAsking(nodeId);
      }
    },
    { signal },
  );
}

async function answer(client: ServeClient, id: string, question: HumanQuestion, signal: AbortSignal, hooks: RemoteRunHooks): Promise<void> {
  let given: Answer;
  try {
    given = await hooks.ask(question, signal);
  } catch {
    // Asking stopped: the gate was answered elsewhere or the run ended.
    return;
  }
  if (signal.aborted || given.kind === 'timeout') return;
  try {
    await client.answer(id, question.id, given);
  } catch (error) {
    const reason = error instanceof ServeRequestError && error.status === 404 ? 'the question no longer waits (answered elsewhere, timed out, or the run ended)' : error instanceof Error ? error.message : String(error);
    hooks.onAnswerRefused?.(question, reason);
  }
}
