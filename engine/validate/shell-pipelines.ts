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
  /**
   * Whether the pipeline's status can become the script's exit status: nothing but `fi`/`done`/
   * `esac`/`}` (or another branch of the same `if`) follows its and-or list, or `set -e` is on. Never one
   * tested by `if`/`elif`/`while`/`until`: there the status is the test, not the verdict.
   */
  readonly decidesStatus: boolean;
}

const PREFIXES = new Set(['!', 'time', 'command', 'exec', 'env', 'nice', 'nohup', 'sudo', 'stdbuf', 'timeout']);
const CONDITION_KEYWORDS = new Set(['if', 'elif', 'while', 'until']);
// Reserved words that open or close a compound command rather than name one.
const KEYWORDS = new Set([...CONDITION_KEYWORDS, 'then', 'do', 'else', 'fi', 'done', 'esac', '{', '}']);
const CLOSERS = new Set(['fi', 'done', 'esac', '}']);
const ERREXIT = /\bset\s+(?:-[a-zA-Z]*e|-o\s+errexit)/;

type Statement = Omit<ShellPipeline, 'decidesStatus'>;

/**
 * Whether `text` may hold a pipe between two stages: false when every `|` in it is half of an
 * unescaped `||`, which no quote or group can turn into a pipe. Most commands are such, and then no
 * pipeline of theirs has a second stage: splitting them can be skipped.
 */
export function mayPipe(text: string): boolean {
  for (let i = text.indexOf('|'); i >= 0; i = text.indexOf('|', i)) {
    if (text[i + 1] !== '|' || text[i + 2] === '|' || text[i - 1] === '\\') return true;
    i += 2;
  }
  return false;
}

export function splitPipelines(text: string): ShellPipeline[] {
  const pipelines = splitStatements(text);
  const errexit = ERREXIT.test(text);
  // Whether each statement's and-or list can end the script: decided at the list's last statement.
  const endsScript: boolean[] = new Array<boolean>(pipelines.length);
  for (let i = pipelines.length - 1; i >= 0; i--) {
    const operator = pipelines[i]?.next?.operator;
    if (operator === '&&' || operator === '||') endsScript[i] = endsScript[i + 1] as boolean;
    else endsScript[i] = operator !== '&' && onlyClosersFollow(text, pipelines.slice(i + 1)); // a background job's status is nobody's
  }
  let tested = false;
  return pipelines.map((pipeline, i) => {
    const previous = pipelines[i - 1]?.next?.operator;
    if (previous !== '&&' && previous !== '||') tested = CONDITION_KEYWORDS.has(firstWord(text, pipeline));
    return { ...pipeline, decidesStatus: !tested && (errexit || (endsScript[i] as boolean)) };
  });
}

/**
 * Whether nothing but closers (`fi`, `done`, `esac`, `}`) runs after a statement: an `else`/`elif`
 * branch that follows belongs to the other way through the `if` and is skipped to its `fi`.
 */
function onlyClosersFollow(text: string, later: readonly Span[]): boolean {
  let otherBranch = 0; // open `if`s while skipping an alternative branch
  for (const statement of later) {
    const words = wordsOf(text, statement);
    if (otherBranch === 0 && (words[0] === 'else' || words[0] === 'elif')) otherBranch = 1;
    else if (otherBranch === 0) {
      if (!words.every((word) => CLOSERS.has(word) || /^\d*[<>]/.test(word))) return false;
      continue;
    }
    for (const word of words.slice(1)) {
      if (word === 'if') otherBranch++;
      else if (word === 'fi') otherBranch--;
    }
    if (words[0] === 'fi') otherBranch--;
  }
  return true;
}

function wordsOf(text: string, span: Span): string[] {
  return text.slice(span.start, span.end).trim().split(/\s+/);
}

function firstWord(text: string, span: Span): string {
  return wordsOf(text, span)[0] ?? '';
}

function splitStatements(text: string): Statement[] {
  const pipelines: Statement[] = [];
  let stages: ShellStage[] = [];
  let stageStart = 0;
  let pipelineStart = 0;
  let depth = 0;
  const closeStage = (end: number) => {
    stages.push({ start: stageStart, end, command: commandWord(text.slice(stageStart, end)) });
  };
  const closePipeline = (end: number, next?: Statement['next']) => {
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
    if (word === '' || PREFIXES.has(word) || KEYWORDS.has(word) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || /^\d*[<>]/.test(word) || word.startsWith('-')) continue;
    return word.replace(/^.*\//, '');
  }
  return '';
}
