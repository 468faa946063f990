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
/** The kind code in a token row's first field: above it are UNCLOSED and a punctuation's char code (see punct). */
export const KIND_MASK = 7;
/** A token row: kind code (with UNCLOSED, or the punctuation's char code), start, end. */
export const TOKEN_FIELDS = 3;

/**
 * The first field of the row of punctuation `char` (a char code): the statement reader tells
 * `{`, `[`, `=`… apart by this one number, without reading the text.
 */
export function punct(char: number): number {
  return PUNCT | (char << 4);
}

// Char-code tests rather than regexes: the scanner runs over the whole text of every file opened.
/** For each ASCII char code: 1 if it starts an id (a letter or `_`), 2 if it only continues one (a digit). */
const ID_CHARS = new Uint8Array(0x80).map((_, code) => ((code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 ? 1 : code >= 48 && code <= 57 ? 2 : 0));

function isIdStart(code: number): boolean {
  return code >= 0x80 || ID_CHARS[code] === 1;
}

function isIdChar(code: number): boolean {
  return code >= 0x80 || ID_CHARS[code] !== 0;
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
  /** The index the next token gets. */
  let index = rows.length / TOKEN_FIELDS;
  /** Appends a token (its kind code flagged UNCLOSED when left open) unless `stop` accepts it; false once stopped. */
  const push = (flagged: number, start: number, end: number): boolean => {
    if (stop !== undefined && stop(flagged, start, end)) {
      stoppedAt = start;
      return false;
    }
    if (flagged !== COMMENT && flagged !== (COMMENT | UNCLOSED)) code.push(index);
    rows.push3(flagged, start, end);
    index++;
    return true;
  };
  // Char codes rather than characters or regexes: the scanner runs over the whole text of every file opened.
  while (i < n) {
    const c = text.charCodeAt(i);
    // Spaces and punctuation first: most characters of a pipeline are one or the other.
    if (c === 32 || (c >= 9 && c <= 13)) {
      i++;
      continue;
    }
    let kind: number;
    let end: number;
    if (c === 123 || c === 125 || c === 91 || c === 93 || c === 61 || c === 59 || c === 44 || c === 58) {
      kind = punct(c);
      end = i + 1;
    } else if (isIdStart(c)) {
      end = i + 1;
      for (;;) {
        if (end < n && isIdChar(text.charCodeAt(end))) end++;
        else if (continuesBareIdentifier(text, end)) end += 2;
        else break;
      }
      kind = ID;
    } else if (c === 34) {
      // A string: to its closing quote, else (left open) to the end of its line.
      const j = closingQuote(text, i + 1);
      kind = j < n ? STRING : STRING | UNCLOSED;
      end = j < n ? j + 1 : lineEnd(text, i);
    } else {
      const next = text.charCodeAt(i + 1);
      if ((c === 47 && next === 47) || (c === 35 && isAtLineStart(text, i))) {
        kind = COMMENT;
        end = lineEnd(text, i);
      } else if (c === 47 && next === 42) {
        const close = text.indexOf('*/', i + 2);
        kind = close < 0 ? COMMENT | UNCLOSED : COMMENT;
        end = close < 0 ? n : close + 2;
      } else if (c === 60) {
        let depth = 0;
        let j = i;
        for (; j < n; j++) {
          const d = text.charCodeAt(j);
          if (d === 60) depth++;
          else if (d === 62 && --depth === 0) break;
        }
        kind = j < n ? HTML : HTML | UNCLOSED;
        end = j < n ? j + 1 : n;
      } else if (c === 45 && (next === 62 || next === 45)) {
        kind = ARROW;
        end = i + 2;
      } else {
        const numeral = NUMERAL.exec(text.slice(i, i + 64));
        // A stray character becomes a one-character id so the outline still sees a token there.
        kind = ID;
        end = numeral ? i + numeral[0].length : i + 1;
      }
    }
    if (!push(kind, i, end)) break;
    i = end;
  }
  return stoppedAt;
}

/**
 * The first `"` from `from` on that a backslash does not escape (a backslash escapes the character
 * after it, so a quote after an odd run of them is escaped), else the text's length.
 */
function closingQuote(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote >= 0; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && text.charCodeAt(quote - backslashes - 1) === 92) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
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
