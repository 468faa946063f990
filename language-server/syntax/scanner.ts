/**
 * A forgiving DOT tokenizer. Unlike the engine's PEG parser it never stops: an unterminated HTML
 * literal or block comment runs to the end of the text and is flagged, so editor features keep
 * working on text that is mid-edit. An unterminated string ends with its line: DOT strings may
 * span lines, but one never closed is a slip, and the statements below it are still code.
 */
import { continuesBareIdentifier, isAtLineStart } from '../../engine/parse/lexical';
import type { IntList } from './int-list';

export type TokenKind = 'id' | 'string' | 'html' | 'arrow' | 'punct' | 'comment';

/** A token as an object, made on demand from an outline's rows (Outline.token). */
export interface Token {
  readonly kind: TokenKind;
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** False for a string, HTML literal or block comment left unclosed. */
  readonly terminated: boolean;
}

/** Kind codes of the token rows; UNCLOSED is or-ed in for a string, HTML literal or block comment left open. */
export const KIND_CODES: readonly TokenKind[] = ['id', 'string', 'html', 'arrow', 'punct', 'comment'];
export const ID = 0;
export const STRING = 1;
export const HTML = 2;
export const ARROW = 3;
export const PUNCT = 4;
export const COMMENT = 5;
export const UNCLOSED = 8;
/** A token row: kind code (with UNCLOSED), start, end. */
export const TOKEN_FIELDS = 3;

// Char-code tests rather than regexes: the scanner runs on every keystroke over the whole text.
function isIdStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code >= 0x80;
}

function isIdChar(code: number): boolean {
  return isIdStart(code) || (code >= 48 && code <= 57);
}
const NUMERAL = /^-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)/;

/**
 * Appends the tokens from `from` (a token boundary) on to `rows` (TOKEN_FIELDS numbers each) and,
 * for those that are not comments, their indexes to `code`. With `stop`, scanning ends at the
 * first token it accepts (kind code, start, end), which is not appended; its start is returned, else -1.
 */
export function scanInto(text: string, from: number, rows: IntList, code: IntList, stop?: (kind: number, start: number, end: number) => boolean): number {
  const n = text.length;
  let i = from;
  let stoppedAt = -1;
  const push = (kind: number, start: number, end: number, terminated = true): void => {
    const flagged = terminated ? kind : kind | UNCLOSED;
    if (stop?.(flagged, start, end)) {
      stoppedAt = start;
      return;
    }
    if (kind !== COMMENT) code.push(rows.length / TOKEN_FIELDS);
    rows.push(flagged);
    rows.push(start);
    rows.push(end);
  };
  while (i < n && stoppedAt < 0) {
    const code = text.charCodeAt(i);
    // Spaces and punctuation first, by char code: most characters of a pipeline are one or the other.
    if (code === 32 || (code >= 9 && code <= 13)) {
      i++;
      continue;
    }
    if (code === 123 || code === 125 || code === 91 || code === 93 || code === 61 || code === 59 || code === 44 || code === 58) {
      push(PUNCT, i, i + 1);
      i++;
      continue;
    }
    const ch = text[i] as string;
    const next = text[i + 1];
    if ((ch === '/' && next === '/') || (ch === '#' && isAtLineStart(text, i))) {
      const end = lineEnd(text, i);
      push(COMMENT, i, end);
      i = end;
    } else if (ch === '/' && next === '*') {
      const close = text.indexOf('*/', i + 2);
      const end = close < 0 ? n : close + 2;
      push(COMMENT, i, end, close >= 0);
      i = end;
    } else if (ch === '"') {
      let j = i + 1;
      for (let code = text.charCodeAt(j); j < n && code !== 34; code = text.charCodeAt(j)) j += code === 92 && j + 1 < n ? 2 : 1;
      const terminated = j < n;
      const end = terminated ? j + 1 : lineEnd(text, i);
      push(STRING, i, end, terminated);
      i = end;
    } else if (ch === '<') {
      let depth = 0;
      let j = i;
      for (; j < n; j++) {
        if (text[j] === '<') depth++;
        else if (text[j] === '>' && --depth === 0) break;
      }
      const terminated = j < n;
      push(HTML, i, terminated ? j + 1 : n, terminated);
      i = terminated ? j + 1 : n;
    } else if (ch === '-' && (next === '>' || next === '-')) {
      push(ARROW, i, i + 2);
      i += 2;
    } else if (isIdStart(code)) {
      let j = i + 1;
      for (;;) {
        if (j < n && isIdChar(text.charCodeAt(j))) j++;
        else if (continuesBareIdentifier(text, j)) j += 2;
        else break;
      }
      push(ID, i, j);
      i = j;
    } else {
      const numeral = NUMERAL.exec(text.slice(i, i + 64));
      const end = numeral ? i + numeral[0].length : i + 1;
      // A stray character becomes a one-character id so the outline still sees a token there.
      push(ID, i, end);
      i = end;
    }
  }
  return stoppedAt;
}

function lineEnd(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  const end = newline < 0 ? text.length : newline;
  return end > from && text[end - 1] === '\r' ? end - 1 : end;
}

/** Where a token's value is written: inside the quotes of a string (to its end when left unclosed). */
export function valueSpan(token: Token): { start: number; end: number } {
  return token.kind === 'string' ? { start: token.start + 1, end: token.end - (token.terminated ? 1 : 0) } : { start: token.start, end: token.end };
}

/** The value of an id or string token: quotes removed, `\"` resolved (other escapes kept for the engine). */
export function tokenValue(token: Token): string {
  return token.kind === 'string' ? stringValue(token.text, token.terminated) : token.text;
}

/** The value of a string token's text. */
export function stringValue(text: string, terminated: boolean): string {
  const inner = text.slice(1, terminated ? -1 : undefined);
  return inner.includes('\\') ? inner.replace(/\\"/g, '"') : inner;
}
