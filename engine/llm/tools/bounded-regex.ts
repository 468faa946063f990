import vm from 'node:vm';
import { ToolError } from './tool-error';

/**
 * A model-supplied regular expression run under a time budget. A catastrophically backtracking
 * pattern would otherwise block the engine's only thread — cancellation included; a vm timeout
 * interrupts even a regex mid-match.
 */
export class BoundedRegex {
  private readonly context: vm.Context;
  private readonly match = new vm.Script('matchLines(lines)');

  constructor(
    private readonly tool: string,
    pattern: string,
    private budgetMs: number,
  ) {
    this.context = vm.createContext({ pattern, lines: [] as string[] });
    try {
      vm.runInContext(
        'const regex = new RegExp(pattern); function matchLines(lines) { const out = []; for (let i = 0; i < lines.length; i++) if (regex.test(lines[i])) out.push(i); return out; }',
        this.context,
      );
    } catch (error) {
      throw new ToolError(`${tool}: invalid regular expression: ${(error as Error).message}`);
    }
  }

  /** Indices of the lines that match. Throws a ToolError once the budget is spent. */
  matchingLines(lines: readonly string[]): number[] {
    this.context.lines = lines;
    const started = performance.now();
    try {
      return [...(this.match.runInContext(this.context, { timeout: Math.max(1, Math.ceil(this.budgetMs)) }) as number[])];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
      throw new ToolError(`${this.tool}: the pattern ran out of its time budget (catastrophic backtracking?); simplify it`);
    } finally {
      this.budgetMs -= performance.now() - started;
      this.context.lines = [];
    }
  }
}
