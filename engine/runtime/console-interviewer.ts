import readline from 'node:readline';
import type { HumanQuestion } from './events';
import type { Answer, Interviewer } from './interviewer';

/** Canonical §6.4 ConsoleInterviewer: asks on a terminal, reads the answer from stdin. */
export class ConsoleInterviewer implements Interviewer {
  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stderr,
  ) {}

  async ask(question: HumanQuestion, signal: AbortSignal): Promise<Answer> {
    const lines = [`\n[?] ${question.text}`, ...question.options.map((o) => `  [${o.key}] ${o.label}`)];
    if (question.freeform) lines.push('  (or type a free-text answer)');
    this.output.write(`${lines.join('\n')}\n`);
    const rl = readline.createInterface({ input: this.input, output: this.output, terminal: false });
    try {
      const text = await new Promise<string | undefined>((resolve) => {
        rl.question('Select: ', (answer) => resolve(answer));
        rl.once('close', () => resolve(undefined));
        signal.addEventListener('abort', () => resolve(undefined), { once: true });
      });
      if (text === undefined) return signal.aborted ? { kind: 'timeout' } : { kind: 'skipped' };
      const trimmed = text.trim();
      if (!trimmed) return { kind: 'skipped' };
      const isOption = question.options.some((o) => o.key.toLowerCase() === trimmed.toLowerCase() || o.label === trimmed || o.to === trimmed);
      return isOption || !question.freeform ? { kind: 'option', choice: trimmed } : { kind: 'freeform', text: trimmed };
    } finally {
      rl.close();
    }
  }
}
