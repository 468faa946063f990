import type { HumanQuestion } from './events';

/** Canonical §6.3 answers: an option (by key, label or target id), free text, or no answer. */
export type Answer =
  | { readonly kind: 'option'; readonly choice: string; readonly attachments?: readonly string[] }
  | { readonly kind: 'freeform'; readonly text: string; readonly attachments?: readonly string[] }
  | { readonly kind: 'skipped' }
  | { readonly kind: 'timeout' };

/** A person's answer to a gate: the one shape the graph view, the `answerGate` request and VS Code's quick pick send. */
export type GateReply = Exclude<Answer, { readonly kind: 'timeout' }>;

/** Asks scripted answers first (per node, in order; a demo or a test replays them), then `fallback`. */
export class ScriptedFirstInterviewer implements Interviewer {
  private readonly scripted: Map<string, Answer[]>;

  constructor(scripted: Readonly<Record<string, readonly Answer[]>>, private readonly fallback: Interviewer) {
    this.scripted = new Map(Object.entries(scripted).map(([node, answers]) => [node, [...answers]]));
  }

  ask(question: HumanQuestion, signal: AbortSignal): Promise<Answer> {
    const next = this.scripted.get(question.nodeId)?.shift();
    return next ? Promise.resolve(next) : this.fallback.ask(question, signal);
  }
}

/** Canonical §6.1: every human interaction goes through an Interviewer. */
export interface Interviewer {
  ask(question: HumanQuestion, signal: AbortSignal): Promise<Answer>;
}

/** Canonical §6.4: the first option, always. For automation. */
export class AutoApproveInterviewer implements Interviewer {
  async ask(question: HumanQuestion): Promise<Answer> {
    const first = question.options[0];
    return first ? { kind: 'option', choice: first.key } : { kind: 'freeform', text: 'auto-approved' };
  }
}

/** Delegates to a function: the debug adapter and the graph view answer through this. */
export class CallbackInterviewer implements Interviewer {
  constructor(private readonly callback: (question: HumanQuestion, signal: AbortSignal) => Promise<Answer>) {}

  ask(question: HumanQuestion, signal: AbortSignal): Promise<Answer> {
    return this.callback(question, signal);
  }
}

/** Pre-filled answers per gate node, consumed one per visit; SKIPPED once a queue is empty. */
export class QueueInterviewer implements Interviewer {
  private readonly queues: Map<string, Answer[]>;

  constructor(answers: Readonly<Record<string, readonly Answer[]>>) {
    this.queues = new Map(Object.entries(answers).map(([node, list]) => [node, [...list]]));
  }

  async ask(question: HumanQuestion): Promise<Answer> {
    return this.queues.get(question.nodeId)?.shift() ?? { kind: 'skipped' };
  }
}
