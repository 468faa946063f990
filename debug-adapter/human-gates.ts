import type { HumanQuestion, WalkScope } from '../engine/runtime/events';
import type { Answer, Interviewer } from '../engine/runtime/interviewer';
import { matchOption } from '../engine/handlers/human';
import { optionCaption } from '../engine/model/accelerator';
import type { GateAnswer } from './protocol';

interface OpenGate {
  readonly question: HumanQuestion;
  readonly resolve: (answer: Answer) => void;
}

export interface GateListener {
  opened(question: HumanQuestion, scope: WalkScope): void;
  closed(gateId: string): void;
}

/**
 * Human gates under the debugger: answers scripted for a gate are used first (so a scripted run
 * behaves as under `attractor run`); a gate with none left waits for the client's `answerGate`.
 */
export class GateDesk implements Interviewer {
  private readonly open = new Map<string, OpenGate>();
  private readonly scopes = new Map<string, WalkScope>();
  private readonly scripted: Map<string, Answer[]>;

  constructor(
    private readonly listener: GateListener,
    scriptedAnswers: Readonly<Record<string, readonly Answer[]>> = {},
  ) {
    this.scripted = new Map(Object.entries(scriptedAnswers).map(([node, list]) => [node, [...list]]));
  }

  /** The engine announces a question (with its scope) just before it asks it. */
  noteQuestion(question: HumanQuestion, scope: WalkScope): void {
    this.scopes.set(question.id, scope);
  }

  ask(question: HumanQuestion, signal: AbortSignal): Promise<Answer> {
    const scripted = this.scripted.get(question.nodeId)?.shift();
    if (scripted) return Promise.resolve(scripted);
    return new Promise<Answer>((resolve) => {
      const close = () => {
        if (this.open.delete(question.id)) this.listener.closed(question.id);
      };
      // The node's timeout or a cancel aborts the question; the engine applies its default.
      signal.addEventListener('abort', () => {
        close();
        resolve({ kind: 'timeout' });
      }, { once: true });
      this.open.set(question.id, {
        question,
        resolve: (answer) => {
          close();
          resolve(answer);
        },
      });
      this.listener.opened(question, this.scopes.get(question.id) ?? { id: 'main', kind: 'main', frames: [] });
    });
  }

  openGates(): HumanQuestion[] {
    return [...this.open.values()].map((gate) => gate.question);
  }

  answer(gateId: string, answer: GateAnswer): { ok: true } | { ok: false; message: string } {
    const gate = this.open.get(gateId);
    if (!gate) return { ok: false, message: `no human gate ${gateId} is waiting for an answer` };
    if (answer.kind === 'option' && !matchOption(answer.key, gate.question.options)) {
      return { ok: false, message: `"${answer.key}" is not an option of ${gate.question.nodeId} (${gate.question.options.map(optionCaption).join(', ')})` };
    }
    if (answer.kind === 'freeform' && !gate.question.freeform) return { ok: false, message: `${gate.question.nodeId} takes no free-form answer` };
    gate.resolve(answer.kind === 'option' ? { kind: 'option', choice: answer.key } : answer.kind === 'freeform' ? { kind: 'freeform', text: answer.text } : { kind: 'skipped' });
    return { ok: true };
  }
}
