import { appendLineDurable } from './atomic-write';
import type { HumanQuestion } from './events';
import type { Answer, Interviewer } from './interviewer';

/** One question and the answer it got, as a line of the recording file. */
export interface Recording {
  readonly ts: string;
  readonly question: HumanQuestion;
  readonly answer: Answer;
}

/**
 * Canonical §6.4 RecordingInterviewer: asks the wrapped interviewer and keeps every
 * question/answer pair, in memory and, when given a file, appended to it as JSONL (one durable
 * line per answer, so a crash loses nothing already answered).
 */
export class RecordingInterviewer implements Interviewer {
  private readonly pairs: Recording[] = [];

  constructor(
    private readonly inner: Interviewer,
    private readonly options: { readonly file?: string; readonly now?: () => number } = {},
  ) {}

  get recordings(): readonly Recording[] {
    return this.pairs;
  }

  async ask(question: HumanQuestion, signal: AbortSignal): Promise<Answer> {
    const answer = await this.inner.ask(question, signal);
    const recording: Recording = { ts: new Date(this.options.now?.() ?? Date.now()).toISOString(), question, answer };
    this.pairs.push(recording);
    if (this.options.file) appendLineDurable(this.options.file, JSON.stringify(recording));
    return answer;
  }
}
