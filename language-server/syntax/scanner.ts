/**
 * A forgiving DOT tokenizer. Unlike the engine's PEG parser it never stops: an unterminated HTML
 * literal or block comment runs to the end of the text and is flagged, so editor features keep
 * working on text that is mid-edit. An unterminated string ends with its line: DOT strings may
 * span lines, but one never closed is a slip, and the statements below it are still code.
 */
import { continuesBareIdentifier, isAtLineStart } from '../../engine/parse/lexical';

type TokenKind = 'id' | 'string' | 'html' | 'arrow' | 'punct' | 'comment';

export interface Token {
  readonly kind: TokenKind;
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** False for a string, HTML literal or block comment left unclosed. */
  readonly terminated: boolean;
}

/**
 * Tokens scanned together share a segment (at most SEGMENT_SIZE of them): an edit moves every
 * token after it by shifting their segments, without touching the tokens or the records that hold
 * them, so the incremental outline of a long text costs what the edit does (shiftTokens).
 */
class Segment {
  shift = 0;
}

const SEGMENT_SIZE = 256;

class ScannedToken implements Token {
  constructor(
    readonly kind: TokenKind,
    private readonly scannedStart: number,
    private readonly scannedEnd: number,
    readonly text: string,
    readonly terminated: boolean,
    public segment: Segment,
  ) {}

  get start(): number {
    return this.scannedStart + this.segment.shift;
  }

  get end(): number {
    return this.scannedEnd + this.segment.shift;
  }
}

/**
 * Moves `tokens` (the run of a text's tokens from some point to its end) by `delta`. The tokens
 * before the run keep their places, even those of the segment the run starts in; any outline
 * holding the run before the move sees it moved too, so only the newest outline is read.
 */
export function shiftTokens(tokens: readonly Token[], delta: number): void {
  const first = tokens[0];
  if (!(first instanceof ScannedToken)) return;
  // The run's first segment may have tokens before the run: its part in the run gets a segment of its own.
  const shared = first.segment;
  const own = new Segment();
  own.shift = shared.shift + delta;
  let k = 0;
  for (let token = tokens[k]; token instanceof ScannedToken && token.segment === shared; token = tokens[++k]) token.segment = own;
  // Every later segment lies wholly in the run (a segment's tokens are contiguous).
  let last = own;
  for (; k < tokens.length; k++) {
    const { segment } = tokens[k] as ScannedToken;
    if (segment !== last) {
      segment.shift += delta;
      last = segment;
    }
  }
}

// Char-code tests rather than regexes: the scanner runs on every keystroke over the whole text.
function isIdStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code >= 0x80;
}

function isIdChar(code: number): boolean {
  return isIdStart(code) || (code >= 48 && code <= 57);
}
const NUMERAL = /^-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)/;
const PUNCTUATION = '{}[]=;,:';

export function scan(text: string): Token[] {
  return scanFrom(text, 0).tokens;
}

/**
 * Tokens from `from` (a token boundary) on. With `stop`, scanning ends at the first token it
 * accepts, which is returned apart: the incremental outline stops where the new tokens line up
 * with the previous text's again.
 */
export function scanFrom(text: string, from: number, stop?: (token: Token) => boolean): { tokens: Token[]; stoppedAt?: Token } {
  const tokens: Token[] = [];
  const n = text.length;
  let i = from;
  let stoppedAt: Token | undefined;
  let segment = new Segment();
  const push = (kind: TokenKind, start: number, end: number, terminated = true): void => {
    if (tokens.length % SEGMENT_SIZE === 0 && tokens.length > 0) segment = new Segment();
    const token = new ScannedToken(kind, start, end, ownCopy(text.slice(start, end)), terminated, segment);
    if (stop?.(token)) stoppedAt = token;
    else tokens.push(token);
  };
  while (i < n && !stoppedAt) {
    const ch = text[i] as string;
    const next = text[i + 1];
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f' || ch === '\v') {
      i++;
    } else if ((ch === '/' && next === '/') || (ch === '#' && isAtLineStart(text, i))) {
      const end = lineEnd(text, i);
      push('comment', i, end);
      i = end;
    } else if (ch === '/' && next === '*') {
      const close = text.indexOf('*/', i + 2);
      const end = close < 0 ? n : close + 2;
      push('comment', i, end, close >= 0);
      i = end;
    } else if (ch === '"') {
      let j = i + 1;
      for (let code = text.charCodeAt(j); j < n && code !== 34; code = text.charCodeAt(j)) j += code === 92 && j + 1 < n ? 2 : 1;
      const terminated = j < n;
      const end = terminated ? j + 1 : lineEnd(text, i);
      push('string', i, end, terminated);
      i = end;
    } else if (ch === '<') {
      let depth = 0;
      let j = i;
      for (; j < n; j++) {
        if (text[j] === '<') depth++;
        else if (text[j] === '>' && --depth === 0) break;
      }
      const terminated = j < n;
      push('html', i, terminated ? j + 1 : n, terminated);
      i = terminated ? j + 1 : n;
    } else if (ch === '-' && (next === '>' || next === '-')) {
      push('arrow', i, i + 2);
      i += 2;
    } else if (PUNCTUATION.includes(ch)) {
      push('punct', i, i + 1);
      i++;
    } else if (isIdStart(ch.charCodeAt(0))) {
      let j = i + 1;
      for (;;) {
        if (j < n && isIdChar(text.charCodeAt(j))) j++;
        else if (continuesBareIdentifier(text, j)) j += 2;
        else break;
      }
      push('id', i, j);
      i = j;
    } else {
      const numeral = NUMERAL.exec(text.slice(i, i + 64));
      const end = numeral ? i + numeral[0].length : i + 1;
      // A stray character becomes a one-character id so the outline still sees a token there.
      push('id', i, end);
      i = end;
    }
  }
  return stoppedAt ? { tokens, stoppedAt } : { tokens };
}

/**
 * V8 keeps a long slice as a view into the whole text. Tokens outlive their text (the incremental
 * outline carries unchanged ones into later versions), so each keeps only its own characters.
 */
function ownCopy(slice: string): string {
  return slice.length < 13 ? slice : (' ' + slice).slice(1);
}

function lineEnd(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  const end = newline < 0 ? text.length : newline;
  return end > from && text[end - 1] === '\r' ? end - 1 : end;
}

/** The value of an id or string token: quotes removed, `\"` resolved (other escapes kept for the engine). */
export function tokenValue(token: Token): string {
  if (token.kind !== 'string') return token.text;
  const inner = token.text.slice(1, token.terminated ? -1 : undefined);
  return inner.replace(/\\"/g, '"');
}
