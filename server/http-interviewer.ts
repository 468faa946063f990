import type { HumanQuestion } from '../engine/runtime/events';
import type { Answer, Interviewer } from '../engine/runtime/interviewer';
import type { PendingQuestion } from '../host/protocol/serve-api';

interface Waiting {
  readonly question: PendingQuestion;
  readonly resolve: (answer: Answer) => void;
}

/** Holds each human gate's question until an HTTP client answers it, or the gate stops waiting (timeout, cancel). */
export class HttpInterviewer implements Interviewer {
  private readonly waiting = new Map<string, Waiting>();

  ask(question: HumanQuestion, signal: AbortSignal): Promise<Answer> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve({ kind: 'timeout' });
      this.waiting.set(question.id, { question: { ...question, askedAt: new Date().toISOString() }, resolve });
      // The gate aborts its signal once it has an answer or gave up waiting: the question is no longer pending.
      signal.addEventListener(
        'abort',
        () => {
          this.waiting.delete(question.id);
          resolve({ kind: 'timeout' });
        },
        { once: true },
      );
    });
  }

  pending(): PendingQuestion[] {
    return [...this.waiting.values()].map(({ question }) => question);
  }

  /** False when no question with this id waits (never asked, or already answered). */
  answer(questionId: string, answer: Answer): boolean {
    const waiting = this.waiting.get(questionId);
    if (!waiting) return false;
    this.waiting.delete(questionId);
    waiting.resolve(answer);
    return true;
  }
}
