import type { HumanQuestion } from '../engine/runtime/events';
import type { Answer, Interviewer } from '../engine/runtime/interviewer';

/** Asks every interviewer at once (a terminal and HTTP clients); the first answer wins and the others stop asking. */
export class FirstAnswerInterviewer implements Interviewer {
  constructor(private readonly interviewers: readonly Interviewer[]) {}

  async ask(question: HumanQuestion, signal: AbortSignal): Promise<Answer> {
    const asking = new AbortController();
    const onAbort = () => asking.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await Promise.race(this.interviewers.map((interviewer) => interviewer.ask(question, asking.signal)));
    } finally {
      signal.removeEventListener('abort', onAbort);
      asking.abort();
    }
  }
}
