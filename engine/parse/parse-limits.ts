/**
 * ts-graphviz's generated parser recurses once per edge-chain step and once per nested subgraph,
 * and overflows the stack (around 6,000 steps or a few thousand levels, less on a deeper caller
 * stack) before its own `maxEdgeChainDepth` check runs, which only counts on the way back out. So
 * the shapes that recurse are measured here, in one linear pass over the text, before the parser
 * sees it; the caps sit far above any pipeline a person writes and well below the overflow.
 */
export const PARSE_LIMITS = {
  /** A pipeline's text, in UTF-8 bytes (also the cap on reading a .dot file). */
  inputBytes: 8 * 1024 * 1024,
  /** `->` steps in one edge statement; a longer path is written as several statements. */
  edgeChainSteps: 2_000,
  /** Subgraphs inside subgraphs. */
  subgraphDepth: 200,
  /** Syntax-tree nodes, ts-graphviz's own count (a pipeline of 8 MiB stays below it). */
  astNodes: 5_000_000,
} as const;

export interface LimitViolation {
  readonly message: string;
  /** Offset of the token where the limit was first passed. */
  readonly offset: number;
}

interface Level {
  chain: number;
  chainId: number;
  last: 'none' | 'operand' | 'op' | 'colon' | 'subgraph';
}

/** The first recursion limit the text passes, or undefined. The text is the parser's (strings protected). */
export function findLimitViolation(text: string): LimitViolation | undefined {
  const levels: Level[] = [{ chain: 0, chainId: 0, last: 'none' }];
  let chainIds = 0;
  let longChain: { offset: number; steps: number; chainId: number } | undefined;
  let deep: { offset: number; depth: number } | undefined;
  const top = (): Level => levels[levels.length - 1] as Level;
  const restart = (level: Level): void => {
    level.chain = 0;
    level.chainId = ++chainIds;
  };
  const operand = (level: Level): void => {
    if (level.last !== 'op' && level.last !== 'colon' && level.last !== 'subgraph') restart(level);
    level.last = 'operand';
  };

  for (const token of tokens(text)) {
    const level = top();
    switch (token.kind) {
      case 'op':
        level.chain++;
        level.last = 'op';
        if (level.chain > PARSE_LIMITS.edgeChainSteps) {
          if (!longChain) longChain = { offset: token.offset, steps: level.chain, chainId: level.chainId };
          else if (longChain.chainId === level.chainId) longChain.steps = level.chain;
        }
        break;
      case 'id':
        if (token.text === 'subgraph') {
          if (level.last !== 'op') restart(level);
          level.last = 'subgraph';
        } else if (level.last === 'subgraph') {
          // the subgraph's name: the operand is complete at its closing brace
        } else operand(level);
        break;
      case ':':
        level.last = 'colon';
        break;
      case '{': {
        if (level.last !== 'op' && level.last !== 'subgraph') restart(level);
        levels.push({ chain: 0, chainId: ++chainIds, last: 'none' });
        const depth = levels.length - 2;
        if (depth > PARSE_LIMITS.subgraphDepth) {
          if (!deep) deep = { offset: token.offset, depth };
          else deep.depth = Math.max(deep.depth, depth);
        }
        break;
      }
      case '}':
        if (levels.length > 1) levels.pop();
        top().last = 'operand';
        break;
      default:
        // `[...]` attribute lists, `;`, `,`, `=` end an edge statement
        restart(level);
        level.last = 'none';
    }
  }
  if (deep) return { offset: deep.offset, message: `pipeline too large: subgraphs nested ${deep.depth} deep (limit ${PARSE_LIMITS.subgraphDepth})` };
  if (longChain) {
    return {
      offset: longChain.offset,
      message: `pipeline too large: an edge chain of ${longChain.steps} steps (limit ${PARSE_LIMITS.edgeChainSteps}); write it as several edge statements`,
    };
  }
  return undefined;
}

type Token = { readonly kind: 'op' | 'id' | ':' | '{' | '}' | 'other'; readonly offset: number; readonly text?: string };

/** A coarse DOT tokenizer: comments, strings, HTML labels and attribute lists are single tokens or skipped. */
function* tokens(text: string): Generator<Token> {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const ch = text[i] as string;
    const next = text[i + 1];
    if (/\s/.test(ch)) i++;
    else if (ch === '/' && next === '/') i = lineEnd(text, i);
    else if (ch === '#' && (i === 0 || text[i - 1] === '\n')) i = lineEnd(text, i);
    else if (ch === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (ch === '-' && (next === '>' || next === '-')) {
      yield { kind: 'op', offset: i };
      i += 2;
    } else if (ch === '"') {
      const start = i;
      i = stringEnd(text, i);
      yield { kind: 'id', offset: start, text: '' };
    } else if (ch === '<') {
      const start = i;
      i = htmlEnd(text, i);
      yield { kind: 'id', offset: start, text: '' };
    } else if (ch === '[') {
      yield { kind: 'other', offset: i };
      i = attributeListEnd(text, i);
    } else if (ch === '{' || ch === '}' || ch === ':') {
      yield { kind: ch, offset: i };
      i++;
    } else if (ch === ';' || ch === ',' || ch === '=' || ch === ']') {
      yield { kind: 'other', offset: i };
      i++;
    } else {
      const start = i;
      while (i < n && !/[\s{}[\]:;,="<-]/.test(text[i] as string)) i++;
      if (i === start) i++;
      yield { kind: 'id', offset: start, text: text.slice(start, i) };
    }
  }
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}

function stringEnd(text: string, from: number): number {
  let i = from + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

function htmlEnd(text: string, from: number): number {
  let depth = 0;
  let i = from;
  for (; i < text.length; i++) {
    if (text[i] === '<') depth++;
    else if (text[i] === '>' && --depth === 0) return i + 1;
  }
  return i;
}

function attributeListEnd(text: string, from: number): number {
  let i = from + 1;
  while (i < text.length && text[i] !== ']') i = text[i] === '"' ? stringEnd(text, i) : text[i] === '<' ? htmlEnd(text, i) : i + 1;
  return i + 1;
}
