/**
 * Just enough shell lexing to find the top-level pipelines of a command and the operators between
 * them: quotes, backslashes, comments, `$(...)`/`(...)`/backtick and `{ ...; }` nesting are skipped
 * over, so a `|` inside them is not mistaken for a pipe of the gate itself.
 */

interface Span {
  readonly start: number;
  readonly end: number;
}

export interface ShellStage extends Span {
  /** The command word (basename), after assignments and prefixes like `time` or `env`; '' when none. */
  readonly command: string;
}

export interface ShellPipeline extends Span {
  readonly stages: readonly ShellStage[];
  /** The operator that follows the pipeline (`&&`, `||`, `;`, `&`, newline), if any. */
  readonly next?: Span & { readonly operator: string };
}

const PREFIXES = new Set(['!', 'time', 'command', 'exec', 'env', 'nice', 'nohup', 'sudo', 'stdbuf', 'timeout']);

export function splitPipelines(text: string): ShellPipeline[] {
  const pipelines: ShellPipeline[] = [];
  let stages: ShellStage[] = [];
  let stageStart = 0;
  let pipelineStart = 0;
  let depth = 0;
  const closeStage = (end: number) => {
    stages.push({ start: stageStart, end, command: commandWord(text.slice(stageStart, end)) });
  };
  const closePipeline = (end: number, next?: ShellPipeline['next']) => {
    closeStage(end);
    if (text.slice(pipelineStart, end).trim() !== '') pipelines.push({ start: pipelineStart, end, stages, ...(next ? { next } : {}) });
    stages = [];
  };
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i] as string;
    const next = text[i + 1];
    if (ch === '\\') {
      i += 2;
    } else if (ch === "'") {
      const close = text.indexOf("'", i + 1);
      i = close < 0 ? n : close + 1;
    } else if (ch === '"') {
      i = skipDoubleQuoted(text, i + 1);
    } else if (ch === '`') {
      const close = text.indexOf('`', i + 1);
      i = close < 0 ? n : close + 1;
    } else if (ch === '#' && (i === 0 || /[\s;&|(]/.test(text[i - 1] ?? ''))) {
      const close = text.indexOf('\n', i);
      i = close < 0 ? n : close;
    } else if (ch === '(') {
      depth++;
      i++;
    } else if (ch === ')') {
      depth = Math.max(0, depth - 1);
      i++;
    } else if (ch === '{' && isWordBoundary(text, i)) {
      depth++;
      i++;
    } else if (ch === '}' && isWordBoundary(text, i) && depth > 0) {
      depth--;
      i++;
    } else if (depth > 0) {
      i++;
    } else if ((ch === '|' && next === '|') || (ch === '&' && next === '&')) {
      closePipeline(i, { operator: ch + next, start: i, end: i + 2 });
      i += 2;
      stageStart = pipelineStart = i;
    } else if (ch === '|') {
      closeStage(i);
      i += next === '&' ? 2 : 1;
      stageStart = i;
    } else if (ch === ';' || ch === '\n' || (ch === '&' && next !== '>' && !/[<>]/.test(text[i - 1] ?? ''))) {
      closePipeline(i, { operator: ch, start: i, end: i + 1 });
      i++;
      stageStart = pipelineStart = i;
    } else {
      i++;
    }
  }
  closePipeline(n);
  return pipelines;
}

function skipDoubleQuoted(text: string, from: number): number {
  let i = from;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

function isWordBoundary(text: string, i: number): boolean {
  const before = text[i - 1];
  const after = text[i + 1];
  return (before === undefined || /[\s;&|(]/.test(before)) && (after === undefined || /[\s;]/.test(after));
}

function commandWord(stage: string): string {
  const words = stage.trim().split(/\s+/);
  for (const word of words) {
    if (word === '' || PREFIXES.has(word) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || /^\d*[<>]/.test(word) || word.startsWith('-')) continue;
    return word.replace(/^.*\//, '');
  }
  return '';
}
